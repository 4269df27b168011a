# Importing an identity (issuer and subject as the provider gave them).
insert ext::auth::Identity { issuer := <str>$issuer, subject := <str>$subject };
