update Post filter .id = <uuid>$id set { title := <str>$title }
