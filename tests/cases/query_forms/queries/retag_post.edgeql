# Replace a post's tags and retitle it; returns the new state of the row.
select (
  update Post filter .id = <uuid>$id
  set { title := <str>$title, tags := (select Tag filter .id in array_unpack(<array<uuid>>$tag_ids)) }
) { id, title, author: { email } };
