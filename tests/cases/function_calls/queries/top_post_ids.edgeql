select top_posts(0)
