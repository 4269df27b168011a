select User { name } filter .name not in array_unpack(<array<str>>$names) order by .name;
