# Store a new API key (the caller generated the secret and hashed it).
insert ApiKey {
  org := (select Organization filter .id = <uuid>$org_id),
  prefix := <str>$prefix,
  secret_hash := <bytes>$secret_hash,
  label := <str>$label,
  scopes := <array<ApiScope>>$scopes,
  created_by := (select User filter .id = <optional uuid>$created_by_id),
  expires_at := <optional datetime>$expires_at,
};
