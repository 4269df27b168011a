# Register a worker; null when the name is taken.
insert Worker {
  name := $name,
  quota := $quota,
  recent := $recent,
  tags := $tags,
  status := $status,
  rating := $rating,
  avatar := $avatar,
  current := (select Job filter .id = $current_id),
  history := (select Job filter .id in array_unpack(<array<uuid>>$history_ids)),
}
unless conflict on (.name);
