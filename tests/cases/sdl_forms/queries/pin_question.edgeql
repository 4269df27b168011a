# A nested insert in an update of one object: inserted once, for that object, and not at all
# when the filter matches none.
update Question filter .id = <uuid>$id
set { pin := (insert Topic { name := <str>$name, note := 'pinned' }) };
