# A `with` selection of another one, `(select pool filter ...)`, is one selection of its type,
# also in the branches of an `if ... else`; `player.name` reads the one object `player` holds
# (https://docs.geldata.com/reference/edgeql/with, .../edgeql/paths).
with
  name := <optional str>$name,
  picky := <optional bool>$picky ?? false,
  player := (select Player filter .name = name),
  pool := (select Character filter .image not ilike '%/default.jpg'),
  pool := (
    select pool filter (.rank = Rank.S if player.name = 'ann' else .cid > 1)
  ) if picky and exists player else pool,
group pool { cid } by .rank
