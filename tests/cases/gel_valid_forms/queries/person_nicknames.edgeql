select Person { nicknames } filter .name = <str>$name;
