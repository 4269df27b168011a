select assert_distinct({'a'} union array_unpack(<array<str>>$xs), message := 'names repeat');
