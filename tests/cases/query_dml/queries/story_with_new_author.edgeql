insert Story {
  title := <str>$title,
  author := (insert Member { name := <str>$name, telegram_id := <int64>$telegram_id }),
  labels := (insert Label { name := <str>$label, kind := 'new' }),
}
