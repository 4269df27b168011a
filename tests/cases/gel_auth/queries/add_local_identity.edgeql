# A local identity's subject is rewritten to its own id on insert.
insert ext::auth::LocalIdentity { issuer := 'local', subject := '' };
