select {
  total := count(User),
  active := count((select User filter .active)),
  label := <str>$prefix ++ '!',
  half := 0.5,
  missing := <int64>{},
  at := datetime_current(),
};
