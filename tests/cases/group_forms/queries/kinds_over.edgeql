# A select over a group written in place, filtered and ordered by the groups' fields
# (https://docs.geldata.com/reference/edgeql/group).
select (group Item by .kind) { kind := .key.kind, n := count(.elements) }
filter .n >= <int64>$min
order by .n desc then .kind
