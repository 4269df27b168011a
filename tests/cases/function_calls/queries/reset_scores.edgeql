select count((update Post filter .score > <int64>$above set { score := 0 }))
