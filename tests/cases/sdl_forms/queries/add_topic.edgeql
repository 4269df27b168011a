insert Topic { name := <str>$name, note := <optional str>$note };
