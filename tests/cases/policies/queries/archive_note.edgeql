update Note filter .id = <uuid>$id set { archived := true };
