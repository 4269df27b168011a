for tg in array_unpack(<array<int64>>$telegram_ids) union (
  select Story { title, author: { name } } filter .author.telegram_id = tg
)
