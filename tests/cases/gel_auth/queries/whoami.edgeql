# The signed-in user, or nothing.
select User { name, identity: { issuer, subject } }
filter .identity = global ext::auth::ClientTokenIdentity;
