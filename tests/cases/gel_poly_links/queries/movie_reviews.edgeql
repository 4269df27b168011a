# Backlinks through the polymorphic link, as computed shape elements: with a shape, and
# without one (the objects' ids).
select Movie {
  title,
  reviews := .<subject[is Review] { body },
  review_ids := .<subject[is Review],
} order by .title;
