update Person filter .name = <str>$name set { nicknames += {'the'} union array_unpack(<array<str>>$more) };
