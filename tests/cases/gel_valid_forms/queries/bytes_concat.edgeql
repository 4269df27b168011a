select <bytes>$a ++ <bytes>$b;
