# Posts with at least $min tags, most tagged first.
select Post { id, title } filter count(.tags) >= $min order by count(.tags) desc then .title;
