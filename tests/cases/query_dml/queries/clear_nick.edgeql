update Member filter .name = <str>$name set { nick := <str>{} }
