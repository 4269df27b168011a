# Edit a post's text. Only its author may edit it.
update Post
  filter .id = <uuid>$id and .author.id = <uuid>$author_id
  set {
    title := $title,
    body := $body,
    excerpt := $excerpt,
    reading_minutes := $reading_minutes,
    updated_at := datetime_current(),
  };
