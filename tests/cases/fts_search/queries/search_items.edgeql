# The best matches first (https://docs.geldata.com/reference/stdlib/fts).
with res := (
  select fts::search(Item, <str>$q, language := 'eng')
)
select res.object { name, description, score := res.score }
order by res.score desc then .name;
