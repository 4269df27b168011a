# A `with` in a `for` body may name a selection of several objects, per element, read where it
# is used (https://docs.geldata.com/reference/edgeql/for).
for c in array_unpack(<array<str>>$names) union (
  with chars := (select Character filter .cid < len(c))
  select Collection { name, n := count(chars), m := count(.characters) } filter .name = c
)
