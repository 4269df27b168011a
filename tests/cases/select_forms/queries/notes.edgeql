with module blog
select Note { body } order by .body;
