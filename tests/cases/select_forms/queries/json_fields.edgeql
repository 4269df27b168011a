with p := <json>$payload
select {
  title := <str>json_get(p, 'post', 'title'),
  second := <optional int64>json_get(p, 'tags', '1'),
  missing := json_get(p, 'nope'),
};
