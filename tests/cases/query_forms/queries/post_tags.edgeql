# A post's tags with the link's properties.
select Post { title, tags: { name, @position, @note } } filter .id = <uuid>$id;
