# Computed elements: aggregates, operators and a parameter, at the top and in a nested shape.
select Book {
  title,
  tag_count := count(.tags),
  long := .pages > 300,
  label := .title ++ <str>$suffix,
  author: {
    name,
    name_length := len(.name),
  },
}
order by .title;
