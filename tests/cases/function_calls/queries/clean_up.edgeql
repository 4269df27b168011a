select {
    unused_tags := count((delete Tag filter not exists .<tags[is Post])),
    low_posts := count((delete Post filter .score < <int64>$min_score)),
    kept := count(Post)
}
