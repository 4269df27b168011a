# Start a draft post for an author. A second post with the same slug by the same author is
# skipped (null).
insert Post {
  title := $title,
  slug := $slug,
  author := (select User filter .id = <uuid>$author_id),
  body := $body,
  excerpt := $excerpt,
  reading_minutes := $reading_minutes,
}
unless conflict on (.author, .slug);
