select <json>$a ++ <json>$b;
