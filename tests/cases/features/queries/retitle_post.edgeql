update Post
  filter .id = <uuid>$id and .author.id = <uuid>$author_id
  set { title := $title, updated_at := datetime_of_statement() };
