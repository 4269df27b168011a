# The docs' weights := [0, 1]: the names weigh nothing.
with res := (
  select fts::search(Item, <str>$q, weights := [0, 1])
)
select res.object { name, score := res.score }
filter res.score > 0
order by res.score desc then .name;
