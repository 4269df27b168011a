insert Account { email := $email, name := $name, age := $age, nicknames := $nicknames, tags := $tags };
