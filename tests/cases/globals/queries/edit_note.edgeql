# Only the owner's own notes change.
update Note
filter .id = <uuid>$id and .owner.id = global current_user_id
set { body := <str>$body };
