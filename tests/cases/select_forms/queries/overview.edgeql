with u := (select User filter .active)
select {
  users := u { name },
  ann := (select User { name, posts: { title } order by .title } filter .name = 'Ann'),
  first_active := (select u { name } order by .name limit 1),
  published := (select Post { title } filter .published order by .title),
  drafts := count(Post filter not .published),
};
