# A free object's field holding a select over groups of a `with` selection whose shape
# computes the grouping value: a JSON list of the groups' fields, in the select's order
# (https://docs.geldata.com/reference/edgeql/group, .../edgeql/shapes).
with
  items := (select Item { who := .owner.name ?? 'nobody' } filter .year >= <int32>$since),
select {
  total := count(items),
  owners := (
    with groups := (group items using who := .who by who)
    select groups { who := .key.who, n := count(.elements) }
    order by .n desc then .who
    limit <int64>$top
  ),
}
