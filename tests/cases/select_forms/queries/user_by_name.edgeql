with n := <str>$name, u := (select User filter .name = n)
select User { name, email } filter .id = u.id;
