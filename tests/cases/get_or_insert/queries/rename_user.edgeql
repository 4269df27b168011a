update User filter .email = <str>$email set { name := <str>$name };
