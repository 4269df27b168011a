# Custom weights of the categories A, B, C, D (empty: Gel's defaults 1, 0.5, 0.25, 0.125); a
# filter on the score.
with res := (
  select fts::search(Item, <str>$q, language := 'eng', weights := <optional array<float64>>$weights)
)
select res.object { name, score := res.score }
filter res.score > 0
order by res.score desc then .name;
