# Claim a job: moves it off Pending, which frees its (name, actor) key.
update Job
  filter .id = $id<uuid>
  set { status := QueueStatus.Running, claimed_at := now() };
