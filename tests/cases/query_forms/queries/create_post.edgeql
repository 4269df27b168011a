# Create a post with its tags and return it with its author, in one statement.
with post := (
  insert Post {
    title := <str>$title,
    slug := <str>$slug,
    author := (select Account filter .id = <uuid>$author_id),
    tags := (select Tag filter .id in array_unpack(<array<uuid>>$tag_ids)),
  }
)
select post { id, title, views, author: { email, name } };
