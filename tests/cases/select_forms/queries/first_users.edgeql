with first := (select User order by .name limit 2)
select first { name };
