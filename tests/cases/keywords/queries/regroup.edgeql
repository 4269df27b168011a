update Order
  filter .user = $user and .group >= $min_group<int64>
  set { group := $group, note := 'moved ' ++ $why<str> };
