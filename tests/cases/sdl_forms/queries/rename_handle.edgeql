update Handle filter .id = <uuid>$id set { name := <str>$name };
