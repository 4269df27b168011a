delete Author filter .id = <uuid>$id
