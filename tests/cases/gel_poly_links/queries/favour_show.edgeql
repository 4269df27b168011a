update Watchlist filter .id = <uuid>$id set { favourite := (select Show filter .id = <uuid>$show) }
