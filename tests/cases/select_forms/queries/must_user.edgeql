with u := (select User filter .name = <str>$name)
select assert_exists(u) { name, active };
