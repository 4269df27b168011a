# A required property and a required link given values that may be empty: an empty one fails
# the insert when it runs, and nothing is inserted.
insert Story {
  title := <optional str>$title,
  author := (select Member filter .id = <optional uuid>$author_id),
}
