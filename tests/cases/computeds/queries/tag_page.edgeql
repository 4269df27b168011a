select Tag { name, posts: { title, author: { full_name } }, go: { name } } filter .name = <str>$name;
