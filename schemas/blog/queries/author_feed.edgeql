# An author's posts, newest first, with the author and the tags nested: one statement.
select Post {
  id,
  title,
  status,
  published_at,
  author: { handle, display_name },
  tags: { slug, name },
}
filter .author.id = <uuid>$author_id
order by .published_at desc then .title
limit $take<int64>;
