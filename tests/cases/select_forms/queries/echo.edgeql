select <str>$text;
