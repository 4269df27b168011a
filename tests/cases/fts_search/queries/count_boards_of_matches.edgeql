with res := (select fts::search(Note, <str>$q, language := 'eng'))
select count(distinct res.object.<notes[is Board] filter .name != 'archive');
