# Create a post by an author (Gel spelling of the link value).
insert Post {
  title := $title,
  slug := $slug,
  author := (select Account filter .id = <uuid>$author_id),
  visibility := $visibility,
}
unless conflict on (.author, .slug);
