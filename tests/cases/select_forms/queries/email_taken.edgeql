select exists (select User filter .email = <str>$email);
