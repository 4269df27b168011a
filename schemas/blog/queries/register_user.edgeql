# Sign up a user. Resolves to null when the e-mail address is already registered.
insert User {
  email := $email,
  handle := $handle,
  display_name := $display_name,
  bio := $bio,
}
unless conflict on .email;
