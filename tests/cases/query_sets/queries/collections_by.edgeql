# A chain of `if ... else` over selections of a `with` selection; a multi link's nested shape
# filtered and ordered by a link property (https://docs.geldata.com/reference/edgeql/expressions,
# .../datamodel/linkprops).
with
  name := <optional str>$name,
  min_n := <optional int64>$min_n,
  shown := (select Collection filter .name != 'hidden'),
  picked := (
    (select shown filter .name = name) if exists name else
    (select shown filter count(.characters) >= min_n) if exists min_n else
    (select shown)
  ),
select picked {
  name,
  characters: { cid, @weight } filter @weight > 4 order by @weight desc,
}
order by .name
