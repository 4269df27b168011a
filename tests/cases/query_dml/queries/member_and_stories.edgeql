# A bound bulk insert whose body binds names per element, and select {m, ss}: the objects both
# bound inserts wrote, united, each { id } (https://docs.geldata.com/reference/edgeql/for,
# https://docs.geldata.com/reference/edgeql/sets).
with
  m := (insert Member { name := <str>$name, telegram_id := <int64>$telegram_id }),
  ss := (
    for s in json_array_unpack(<json>$stories) union (
      with title := <str>json_get(s, 'title'),
      insert Story { title := title, author := m }
    )
  ),
select {m, ss}
