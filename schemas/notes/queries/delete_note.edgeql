delete Note filter .id = <uuid>$id;
