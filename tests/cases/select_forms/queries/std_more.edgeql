# More standard-library functions with Gel's empty-set rules (https://docs.geldata.com/reference/stdlib).
with s := <optional str>$s, doc := to_json(<str>$doc)
select {
  trimmed := str_trim('..x..', '.'),
  has := contains('haystack', 'st'),
  parts := str_split('a,b,,c', ','),
  letters := str_split('abc', ''),
  groups := re_match(r'(\w+)@(\w+)', <str>$email),
  text := to_str(42) ++ ' ' ++ to_str(<datetime>'2018-05-07T15:01:22+00', 'YYYY-MM-DD'),
  rounded := round(2.5),
  smallest := min({3, 1, 2}),
  total := sum(<optional int64>$n),
  mean := math::mean(<optional int64>$n ?? {7}),
  at := to_datetime('2018-05-07T15:01:22+02'),
  day := to_str(cal::to_local_date(2018, 5, 7)),
  kind := json_typeof(doc),
  field := json_get(doc, 'a', default := <json>'none'),
  v1 := uuid_generate_v1mc(),
  same := s ?= 'x',
  differs := s ?!= 'x',
  size := len(s),
  pick := 'long' if len(<str>$email) > 8 else 'short',
};
