update Watchlist filter .id = <uuid>$id set { favourite := (select Movie filter .id = <uuid>$movie) }
