# A with name bound to one member is the shelf's curator; the insert, bound in `with` on a type
# with access policies, is checked when it runs.
with
  curator := (select Member filter .club = global club and .handle = <str>$handle),
  created := (insert Shelf { club := global club, title := <str>$title, curator := curator }),
select created { title, curator: { handle } }
