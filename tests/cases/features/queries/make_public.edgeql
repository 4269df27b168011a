# Make a post public and return what was written.
select (
  update Post filter .id = <uuid>$id set { visibility := Visibility.Public, updated_at := now() }
) { id, title, visibility, author: { id }, updated_at };
