# A shelf curated by a member the same statement inserts or updates: the curator is read as
# the statement leaves it.
with
  member := (
    insert Member { club := global club, handle := <str>$handle, points := <int32>1 }
    unless conflict on ((.club, .handle))
    else (update Member set { points := .points + <int32>1 })
  ),
  shelf := (insert Shelf { club := global club, title := <str>$title, curator := member }),
select shelf { title, curator: { handle, points } }
