# A page of an author's posts with nested author and tags: one statement.
select Post { id, title, created_at, author: { name, email, age, created_at }, editor: { id }, tags: { name } }
filter .author.id = <uuid>$author_id
order by .title
limit $take<int64>;
