insert User { name := <str>$name, tenant := global tenant };
