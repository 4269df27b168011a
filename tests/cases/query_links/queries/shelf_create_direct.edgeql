# The same insert selected with a nested shape.
select (
  insert Shelf {
    club := global club,
    title := <str>$title,
    curator := (select Member filter .club = global club and .handle = <str>$handle),
  }
) { title, curator: { handle } }
