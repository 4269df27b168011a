# Signs a user up.
insert User { name := <str>$name, email := <str>$email };
