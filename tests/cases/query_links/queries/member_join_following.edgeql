# A new member's links are read from the join rows the insert writes.
with joined := (
  insert Member {
    club := global club,
    handle := <str>$handle,
    follows := (select Shelf filter .title in array_unpack(<array<str>>$titles)),
  }
)
select joined { handle, follows: { title } order by .title }
