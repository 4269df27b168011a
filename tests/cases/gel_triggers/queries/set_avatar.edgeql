update Author filter .id = <uuid>$id set { avatar := (select Image filter .id = <uuid>$image) }
