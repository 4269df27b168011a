with u := (select User filter .active)
select { n := count(u), any_active := exists u };
