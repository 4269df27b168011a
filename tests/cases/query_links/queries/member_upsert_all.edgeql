# A bound upsert selected with `assert_exists(m) { ** }` (nanapi's guild_event_merge): its
# properties and links, each link with its target's properties.
with
  handle := <str>$handle,
  member := (
    insert Member { club := global club, handle := handle }
    unless conflict on ((.club, .handle))
    else (update Member set { points := .points + 1 })
  ),
select assert_exists(member) { ** }
