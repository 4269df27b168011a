with res := (select fts::search(Item, <str>$q, language := 'eng'))
select count(res.object);
