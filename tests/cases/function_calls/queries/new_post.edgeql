select new_post(<str>$title) { title, score }
