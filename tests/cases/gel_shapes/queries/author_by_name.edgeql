# The selected type's own path (User.name is .name), and a computed element counting a backlink.
select Author { name, book_count := count(.<author[is Book]) }
filter Author.name = <str>$name;
