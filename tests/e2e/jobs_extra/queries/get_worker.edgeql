# One worker with its current job and history.
select Worker {
  id, name, processed, quota, recent, tags, status, rating, avatar,
  current: { name, actor, payload, status },
  history: { name, actor },
}
filter .name = $name;
