select User { name } order by .name;
