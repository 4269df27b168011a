# A selection that may hold several members, asserted to hold at most one.
with who := (select Member filter .handle = <str>$handle)
update Shelf filter .id = <uuid>$id
set { curator := assert_single(who) }
