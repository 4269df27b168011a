# A bound update used as a value of a free object (nanapi's player_add_media): the member it
# updated, `{ id }` without a shape, and the shelf it added, each exactly one object
# (assert_exists: none fails the statement).
with
  handle := <str>$handle,
  shelf := (select Shelf filter .id = <uuid>$shelf_id),
  updated := (
    update Member
    filter .club = global club and .handle = handle
    set { follows += shelf }
  ),
select {
  member := assert_exists(updated),
  shelf := assert_exists(shelf) { title },
}
