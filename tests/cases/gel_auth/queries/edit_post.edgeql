# Only the author's own posts change (access policy).
update Post filter .id = <uuid>$id set { text := <str>$text };
