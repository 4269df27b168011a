select new_post(<str>$title, <int64>$score).id
