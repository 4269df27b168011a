# ... every film of a selection that may hold several.
with films := (select Film filter .minutes > <int32>$longer_than)
update Shelf filter .id = <uuid>$id
set { works += films }
