# Enqueue a job; raises the typed uq_job_name_actor error when a Pending twin exists.
insert Job { name := $name, actor := $actor, payload := $payload };
