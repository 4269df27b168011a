insert Book { title := <str>$title, author := assert_single((select Person filter .name = <str>$author)) };
