delete Post filter .id = <uuid>$id
