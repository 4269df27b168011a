# A name bound again in a `with` block shadows the earlier binding from there on, and its own
# value reads the earlier one; a nested `with` may shadow an outer name too
# (https://docs.geldata.com/reference/edgeql/with).
with name := <optional str>$name ?? 'ANN',
  name := str_lower(name),
  p := (select Player filter .name = name),
  p := assert_exists(p)
select Roll {
  reason,
  tag := (with name := .reason ++ '!' select name),
  by := name,
}
filter .author = p
order by .reason
