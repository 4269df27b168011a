insert User {
  name := <str>$name,
  identity := (select ext::auth::Identity filter .id = <uuid>$identity),
};
