insert Comment { note := (select Note filter .id = <uuid>$note), text := <str>$text };
