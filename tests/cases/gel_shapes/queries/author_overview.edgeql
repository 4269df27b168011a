# A splat with elements of its own: an element written next to it replaces the splat's.
select Author {
  *,
  bio := .bio ?? '(none)',
  books: { title, pages },
}
filter .name = <str>$name;
