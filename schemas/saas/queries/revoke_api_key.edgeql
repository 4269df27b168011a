# Revoke a key by its prefix. Null when it is unknown or already revoked.
update ApiKey
  filter .prefix = <str>$prefix and not exists .revoked_at
  set { revoked_at := datetime_current() };
