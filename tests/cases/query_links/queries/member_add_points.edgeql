# An update bound in `with` on a type with access policies.
with updated := (
  update Member filter .club = global club and .handle = <str>$handle
  set { points := .points + <int32>$points }
)
select updated { handle, points }
