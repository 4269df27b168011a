# An account by e-mail, case-insensitively: the binding is computed once.
with email := str_lower(<str>$email)
select Account { id, email, name } filter .email = email;
