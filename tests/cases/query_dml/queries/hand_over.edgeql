with who := <str>$editor
select (
  update Story
  filter .id = <uuid>$id
  set { editor := (select Member filter .name = who) }
) { title, editor: { name } }
