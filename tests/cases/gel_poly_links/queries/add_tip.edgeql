insert Tip { body := <str>$body, about := (select Movie filter .id = <uuid>$movie) };
