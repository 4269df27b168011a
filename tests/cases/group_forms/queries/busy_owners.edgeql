# Owners with at least $min items of one kind, the newest first in each group.
with
  items := (select Item filter exists .kind),
  grouped := (group items using owner_name := .owner.name by owner_name, .kind),
  counted := (select grouped { n := count(.elements) }),
select counted {
  key: { owner_name },
  grouping,
  n,
  newest := max(.elements.year),
  elements: { title, year } order by .year desc
}
filter .n >= <int64>$min
order by .key.owner_name
