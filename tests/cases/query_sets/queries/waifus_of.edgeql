# `select distinct (a union b) { ... }` of two selections of one type; `x in s.p` of the
# values of a path from the one object a `with` name holds; a nested `with` naming a set
# of detached objects, counted (https://docs.geldata.com/reference/stdlib/set#operator::distinct,
# .../edgeql/sets, .../edgeql/paths#detached).
with
  player := (select Player filter .name = <str>$name),
  player := assert_exists(player),
  waifus := (select Waifu filter .character.rank != Rank.A),
  tracked := (select waifus filter .character.cid in player.<author[is Roll].received.character.cid),
  single := (
    select waifus filter (
      with cid := .character.cid,
        same := (select detached Waifu filter .character.cid = cid)
      select count(same) = 1
    )
  ),
select distinct (tracked union single) {
  character: { cid },
  owner: { name },
}
order by .character.cid then .owner.name
