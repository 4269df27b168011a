# The same upsert bound in `with` and selected.
with
  handle := <str>$handle,
  points := <int32>$points,
  member := (
    insert Member { club := global club, handle := handle, points := points }
    unless conflict on ((.club, .handle))
    else (update Member set { points := .points + points })
  ),
select member { handle, points }
