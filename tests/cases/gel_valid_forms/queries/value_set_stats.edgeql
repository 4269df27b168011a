# Set functions of sets of values written in the query (https://docs.geldata.com/reference/stdlib/set).
select {
  n := count({1, 2} union array_unpack(<array<int64>>$xs)),
  total := sum(array_unpack(<array<int64>>$xs)),
  lowest := min(array_unpack(<array<int64>>$xs)),
  highest := max({3, 1} union array_unpack(<array<int64>>$xs)),
  mean := math::mean({1, 2} union array_unpack(<array<int64>>$xs)),
  words := array_agg({<str>$a, <optional str>$b}),
  some_true := any(array_unpack(<array<bool>>$flags)),
  all_true := all(array_unpack(<array<bool>>$flags)),
};
