# A polymorphic multi link (Work: Book, Film) gains the book a with name selects.
with book := (select Book filter .code = <str>$code)
update Shelf filter .id = <uuid>$id
set { works += book }
