update Note filter .id = <uuid>$id set { owner := (select User filter .id = <uuid>$owner) };
