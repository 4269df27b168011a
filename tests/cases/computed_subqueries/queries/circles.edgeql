# Computed links made of paths and unions, and a count of one.
select Author {
  name,
  has_open_work,
  circle_size := count(.circle),
  my_reviewers: { name },
  circle: { name },
  pinned_posts: { title },
  best_post: { title },
  outside_reviewers: { name },
}
order by .name;
