# Create a customer account; null when the e-mail address is already registered.
insert Customer {
  email := $email,
  name := $name,
  phone := $phone,
  marketing_opt_in := $marketing_opt_in,
  country := <optional str>$country ?? 'FR',
}
unless conflict on .email;
