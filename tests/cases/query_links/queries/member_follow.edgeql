# The shelf must exist: an unknown id fails the statement.
with shelf := (select Shelf filter .id = <uuid>$shelf)
update Member filter .club = global club and .handle = <str>$handle
set { follows += assert_exists(shelf) }
