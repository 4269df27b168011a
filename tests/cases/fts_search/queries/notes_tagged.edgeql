# any(.tags in t): a multi link holding one of a with selection's objects.
with t := (select Tag filter .name in array_unpack(<array<str>>$names))
select Note { title } filter any(.tags in t) order by .title;
