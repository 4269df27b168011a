select top_posts(<int64>$min_score, n := <int64>$n) { title, score }
