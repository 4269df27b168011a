insert Note { body := <str>$body, owner := (select User filter .id = <uuid>$owner) };
