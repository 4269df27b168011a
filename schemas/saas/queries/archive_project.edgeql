# Archive a live project by slug; frees its name for a new project.
update Project
  filter .org = <uuid>$org_id and .slug = <str>$slug and not exists .archived_at
  set { archived_at := datetime_current(), updated_at := datetime_current() };
