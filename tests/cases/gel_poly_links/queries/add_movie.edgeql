insert Movie { title := <str>$title, release_year := <optional int32>$year }
