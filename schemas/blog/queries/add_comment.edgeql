# Comment on a post. Anonymous comments have no author.
insert Comment {
  post := (select Post filter .id = <uuid>$post_id),
  author := (select User filter .id = <optional uuid>$author_id),
  body := $body,
};
