with author := (select Member filter .handle = <str>$handle limit 1)
select Post { title } filter .author = author order by .title
