# Bulk import from a JSON array of {title, slug, views?, labels?, author}; known slugs are skipped.
for item in json_array_unpack(<json>$items) union (
  insert Post {
    title := <str>item['title'],
    slug := <str>item['slug'],
    views := <optional int32>json_get(item, 'views'),
    labels := <optional array<str>>json_get(item, 'labels'),
    author := (select Account filter .id = <uuid>item['author']),
  }
  unless conflict on .slug
);
