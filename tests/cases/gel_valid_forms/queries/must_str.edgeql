select assert_exists(<optional str>$s, message := 'no s');
