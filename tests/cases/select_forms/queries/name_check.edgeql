with n := <str>$name
select { taken := exists (select User filter .name = n), shout := str_upper(n) };
