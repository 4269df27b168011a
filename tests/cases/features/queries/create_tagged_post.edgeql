# Create a post with its tags (a multi link), in one statement.
insert Post {
  title := $title,
  slug := $slug,
  author := (select Account filter .id = <uuid>$author_id),
  tags := (select Tag filter .id in array_unpack(<array<uuid>>$tag_ids)),
};
