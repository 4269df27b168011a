for m in json_array_unpack(<json>$members) union (
  with
    name := <str>m['name'],
    tg := <int64>m['telegram_id'],
  insert Member { name := name, telegram_id := tg, nick := <optional str>json_get(m, 'nick') }
  unless conflict on .telegram_id
  else (update Member set { name := name, nick := 'merged' })
)
