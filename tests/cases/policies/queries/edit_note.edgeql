update Note filter .id = <uuid>$id set { body := <str>$body };
