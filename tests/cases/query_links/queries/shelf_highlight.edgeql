# A polymorphic single link set to the one film a with name selects, which must exist.
with film := (select Film filter .code = <str>$code)
update Shelf filter .id = <uuid>$id
set { highlight := assert_exists(film) }
