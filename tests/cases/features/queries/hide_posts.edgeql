update Post
  filter .author = <uuid>$author_id and .kind in {'note', 'article'} and exists .body
  set { visibility := Visibility.Private };
