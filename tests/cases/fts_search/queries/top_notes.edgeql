# The search's own order and limit (.score of its tuples), a nested shape, and a page.
with res := (
  select fts::search(Note, <str>$q, language := 'eng')
  order by .score desc then .object.title
  limit <int64>$n
)
select res.object { title, tags: { name } order by .name, score := res.score };
