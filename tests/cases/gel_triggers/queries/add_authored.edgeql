update Author filter .id = <uuid>$id set { posts += (select Post filter .id in array_unpack(<array<uuid>>$posts)) }
