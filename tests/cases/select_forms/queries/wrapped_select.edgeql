select (select User { name } order by .name limit 2);
