insert Book { title := <str>$title, author := assert_exists(assert_single((select Person filter .name = <str>$author)), message := 'no such author') };
