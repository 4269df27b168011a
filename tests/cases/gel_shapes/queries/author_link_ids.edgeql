# Links named without a shape of their own are their objects' ids, as `link: { id }` (Gel
# selects an object without a shape as its id): a computed link (`books`), and in a nested shape
# a single and a multi link.
select Author {
  name,
  books,
  written := .<author[is Book] { title, author, tags },
}
filter .name = <str>$name;
