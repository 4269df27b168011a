select post_titled(<str>$title).score
