# Every author with their posts.
select User {
  first_name,
  full_name,
  post_count,
  posts: { title, shout },
}
order by .full_name empty last then .first_name;
