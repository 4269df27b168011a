# the first member (by handle) whose handle matches the pattern
insert Post {
  title := <str>$title,
  author := (select Member filter .handle like <str>$pattern order by .handle limit 1)
}
