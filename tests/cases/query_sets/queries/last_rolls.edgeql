with rolls := (select Roll order by .reason desc then .coins limit <int64>$n)
select { reasons := array_agg(rolls.reason), n := count(rolls) };
