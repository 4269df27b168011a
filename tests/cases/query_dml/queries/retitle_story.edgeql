# Paths from a with name bound to one object (s.title, s.author.name), and a get-or-insert
# editor written with ?? (https://docs.geldata.com/reference/edgeql/with).
with s := assert_exists((select Story filter .id = <uuid>$id)),
     editor_name := <optional str>$editor ?? s.author.name,
select (update Story filter .id = <uuid>$id set {
  title := <optional str>$title ?? s.title,
  editor := (select Member filter .name = editor_name) ?? (insert Member { name := editor_name, telegram_id := <int64>$telegram_id }),
}) { title, editor_name := .editor.name, author_name := .author.name };
