select User { full_name } filter .post_count >= <int64>$min order by .post_count desc then .first_name;
