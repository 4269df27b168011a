insert Review { body := <str>$body, subject := (select Show filter .id = <uuid>$show) }
