select comment_on(<Post>$post, <str>$body) {
    body,
    post: { title }
}
