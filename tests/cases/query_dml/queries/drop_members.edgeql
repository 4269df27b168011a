for n in array_unpack(<array<str>>$names) union (delete Member filter .name = n)
