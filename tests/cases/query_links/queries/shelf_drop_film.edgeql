with film := (select Film filter .code = <str>$code)
update Shelf filter .id = <uuid>$id
set { works -= film }
