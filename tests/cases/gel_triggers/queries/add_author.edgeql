insert Author { name := <str>$name }
