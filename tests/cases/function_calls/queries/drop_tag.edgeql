with d := (delete Tag filter .name = <str>$name)
select count(d)
