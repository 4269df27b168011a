delete Tag filter .id = <uuid>$id
