# the member with the most karma, the last handle among equals
update Post filter .title = <str>$title
set { editor := (select Member order by .karma desc then .handle desc limit 1) }
