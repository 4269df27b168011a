# Create a user; null when the e-mail address is known.
insert User { email := <str>$email, name := <optional str>$name }
  unless conflict on .email;
