select bump(title := <str>$title) { title, score }
