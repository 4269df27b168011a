insert Tag { name := <str>$name }
