select Author { name, total_likes } filter .total_likes >= <int64>$min order by .total_likes desc then .name;
