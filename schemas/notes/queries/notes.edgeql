# Every note the signed-in user can read: their own and the shared ones, newest first.
select Note { title, body, shared, is_mine, created_at, owner: { name } }
  order by .created_at desc
  limit <optional int64>$limit ?? 50;
