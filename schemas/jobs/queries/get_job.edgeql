# One job by id, or nothing.
select Job { id, name, actor, status, claimed_at, processed_at }
  filter .id = <uuid>$id;
