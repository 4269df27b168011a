# A new user; nothing when the e-mail is taken.
insert User { email := <str>$email }
unless conflict on .email;
