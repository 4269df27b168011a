# The author is the signed-in user (the link's default reads the global).
insert Post { text := <str>$text };
