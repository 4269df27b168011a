# A bound update selected with a shape in a free object's field (nanapi's collection_add_media).
with
  book := (select Book filter .code = <str>$code),
  updated := (
    update Shelf
    filter .id = <uuid>$id
    set { works += book }
  ),
select {
  shelf := assert_exists(updated) { title, curator },
  book := assert_exists(book) { code, pages },
}
