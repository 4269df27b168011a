delete Show filter .id = <uuid>$id
