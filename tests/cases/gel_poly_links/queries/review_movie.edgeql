insert Review { body := <str>$body, subject := (select Movie filter .id = <uuid>$movie) }
