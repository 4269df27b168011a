# An author with the computeds made of sub-queries.
select Author {
  name,
  first_post,
  last_published,
  total_likes,
  has_drafts,
  best_score,
  published: { title },
  followed_a: { name },
}
filter .name = <str>$name;
