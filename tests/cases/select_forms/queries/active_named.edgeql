with u := (select User filter .active)
select u { name } filter .name ilike <str>$pattern order by .name;
