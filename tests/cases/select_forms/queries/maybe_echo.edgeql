select <optional str>$text;
