# A free object's field selecting groups that the query's own `with` binds (a `with` name is its
# expression wherever it is read: https://docs.geldata.com/reference/edgeql/with), with a computed
# field a second binding adds to them (https://docs.geldata.com/reference/edgeql/group); and one
# selecting a group written in place.
with
  recent := (select Item filter .year >= <int32>$since),
  by_kind := (group recent by .kind),
  counted := (select by_kind { n := count(.elements) }),
select {
  total := count(recent),
  kinds := (select counted { kind := .key.kind, n } order by .n desc then .kind limit <int64>$top),
  all_kinds := (select by_kind { kind := .key.kind, newest := max(.elements.year) } order by .kind),
  by_age := (select (group recent using old := .year < 2020 by old) { old := .key.old, n := count(.elements) }
             order by .old),
}
