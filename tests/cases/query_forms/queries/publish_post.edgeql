# Publish a post; the timestamp is taken once and returned.
with at := datetime_of_statement(),
     published := (update Post filter .id = <uuid>$id set { published_at := at })
select published { id, title, published_at, tags: { name, @position } };
