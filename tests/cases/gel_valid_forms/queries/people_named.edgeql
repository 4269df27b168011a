with names := {'ann', 'bob'} union array_unpack(<array<str>>$more)
select Person { name } filter .name in names order by .name;
