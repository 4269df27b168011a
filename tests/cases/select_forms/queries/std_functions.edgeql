with t := <datetime>$t
select {
  trimmed := str_trim_start('  x') ++ str_trim_end('y  '),
  repeated := str_repeat(<optional str>$s, 3),
  replaced := str_replace('aXbX', 'X', '-'),
  reversed := str_reverse('abc'),
  found := find('hello', 'l'),
  not_found := find('hello', 'z'),
  absolute := math::abs(-3),
  year := datetime_get(t, 'year'),
  minutes := datetime_get(t, 'minutes'),
  day := datetime_truncate(t, 'days'),
  id := uuid_generate_v4(),
};
