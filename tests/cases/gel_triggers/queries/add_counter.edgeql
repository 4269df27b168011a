insert Counter { name := <str>$name }
