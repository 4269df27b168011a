# Enqueue a job, or refresh the payload of its Pending twin: always returns the job's id.
insert Job { name := $name, actor := $actor, payload := $payload }
  unless conflict on (.name, .actor)
  else (update Job set { payload := $payload });
