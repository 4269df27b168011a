insert Person { name := <str>$name };
