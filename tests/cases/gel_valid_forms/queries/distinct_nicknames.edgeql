select Person { name, nicks := assert_distinct(.nicknames) } filter .name = <str>$name;
