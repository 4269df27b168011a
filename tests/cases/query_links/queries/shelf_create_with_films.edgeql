# A new shelf's links (a polymorphic multi link) are read from the join rows the insert writes.
with created := (
  insert Shelf {
    club := global club,
    title := <str>$title,
    works := (select Film filter .minutes > <int32>$longer_than),
  }
)
select created { title, works: { code } order by .code }
