# A note of the signed-in user: the owner comes from the link's default.
insert Note { body := <str>$body, tenant := global tenant };
