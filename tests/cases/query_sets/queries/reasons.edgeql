with rolls := (select Roll order by .reason desc limit <int64>$n)
select rolls.reason;
