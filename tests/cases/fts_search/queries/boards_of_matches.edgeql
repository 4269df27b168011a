# The boards holding a note that matches: a backlink from the search's objects, [is Board] of
# an abstract type whose one concrete subtype is Pinboard, distinct, filtered and paged.
with res := (select fts::search(Note, <str>$q, language := 'eng')),
  notes := (select res.object order by res.score desc)
select distinct notes.<notes[is Board] { name, notes: { title } order by .title }
filter .name != 'archive'
order by .name
offset <int64>$offset
limit <int64>$limit;
