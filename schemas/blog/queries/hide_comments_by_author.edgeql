# Moderation: hide every visible comment of a user.
update Comment
  filter .author.id = <uuid>$author_id and not .is_hidden
  set { is_hidden := true, updated_at := datetime_current() };
