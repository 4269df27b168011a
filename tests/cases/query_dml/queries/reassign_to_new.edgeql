with m := (insert Member { name := <str>$name, telegram_id := <int64>$telegram_id })
update Story filter .id = <uuid>$id
set { editor := m }
