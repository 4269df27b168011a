with m := (insert Member { name := <str>$name, telegram_id := <int64>$telegram_id })
select (insert Story { title := <str>$title, author := m }) { title, author: { id } }
