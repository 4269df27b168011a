# Add to a counter's hits; returns the new counts.
select (update Counter filter .name = $name set { hits := .hits + $by<int64> }) { hits, cap };
