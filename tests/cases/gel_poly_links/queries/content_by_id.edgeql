select Content { title, kind } filter .id = <uuid>$id;
