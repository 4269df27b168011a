# {*}: every property, computed ones included (kebab-case file name: authorsAll / AuthorsAll).
select Author {*}
order by .name;
