insert Show { title := <str>$title, seasons := <optional int32>$seasons }
