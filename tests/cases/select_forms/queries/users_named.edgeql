with names := array_unpack(<array<str>>$names)
select User { name } filter .name in names order by .name;
