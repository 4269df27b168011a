# The user with this e-mail, inserted when there is none.
insert User { email := <str>$email }
unless conflict on .email
else (select User);
