with author_tg := <int64>$author
for t in array_unpack(<array<str>>$titles) union (
  with who := (select Member filter .telegram_id = author_tg)
  insert Story { title := t, author := who }
)
