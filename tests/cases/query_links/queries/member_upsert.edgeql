# An upsert on a type with access policies: the new member gets the insert check, the existing
# one the update's (and is updated only when its update policies let the query see it).
insert Member {
  club := (select Club filter .id = <uuid>$club),
  handle := <str>$handle,
  points := <int32>$points,
}
unless conflict on ((.club, .handle))
else (update Member set { points := .points + <int32>$points })
