# A player's rolls of some reasons: counted, summed, their values gathered.
with player := (select Player filter .name = <str>$name),
  rolls := (select player.<author[is Roll] filter .reason in {'a', 'b'})
select {
  total := count(rolls),
  coins := sum(rolls.coins),
  reasons := array_agg(rolls.reason),
  ranks := array_agg(rolls.received.character.rank),
  received := count(rolls.received),
  a_count := count((select rolls filter .reason = 'a')),
  any_received := exists rolls.received,
};
