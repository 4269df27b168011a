select User {
  name,
  friends: { name } filter .active order by .name desc limit <int64>$n,
  posts: { title } filter .published order by .title,
} filter .name = <str>$name;
