# exists fts::search(...): a match or not.
select Note { title } filter exists fts::search(Note, <str>$q) order by .title;
