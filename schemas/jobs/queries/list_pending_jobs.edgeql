# The Pending jobs of an actor, by name, for a worker to pick from.
select Job { id, name, actor, payload, status }
  filter .status = QueueStatus.Pending and .actor = $actor
  order by .name
  limit $max<int64>;
