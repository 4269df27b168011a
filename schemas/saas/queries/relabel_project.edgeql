# Replace a project's labels.
update Project
  filter .id = <uuid>$id and .org.id = <uuid>$org_id
  set { labels := <array<str>>$labels, updated_at := datetime_current() };
