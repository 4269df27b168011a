with u := (select User filter .email ilike <str>$pattern)
select { only := assert_single(u) { name } };
