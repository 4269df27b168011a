insert Watchlist { name := <str>$name }
