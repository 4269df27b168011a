# Enqueue a job; a no-op (returns no id) when a Pending twin exists.
insert Job { name := $name, actor := $actor, payload := $payload }
  unless conflict on (.name, .actor);
