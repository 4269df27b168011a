with u := (select User filter .email ilike <str>$pattern)
select assert_single(u) { name };
