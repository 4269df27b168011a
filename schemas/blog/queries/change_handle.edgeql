# Change the handle of the user with this e-mail address (at most one: e-mail is exclusive).
update User
  filter .email = $email
  set { handle := $handle, updated_at := datetime_current() };
