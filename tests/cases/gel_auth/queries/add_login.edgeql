insert ext::auth::EmailPasswordFactor {
  email := <str>$email,
  password_hash := <str>$password_hash,
  identity := (select ext::auth::LocalIdentity filter .id = <uuid>$identity),
};
