insert Story {
  title := <str>$title,
  author := (select Member filter .telegram_id = <int64>$telegram_id),
  labels := (select Label { @weight := 5 } filter .name = <str>$label),
}
