update Post filter .id = <uuid>$id
set { tags += (select Tag filter .id in array_unpack(<array<uuid>>$tag_ids)) };
