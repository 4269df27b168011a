# `??` binds tighter than arithmetic and `++` (https://docs.geldata.com/reference/stdlib/set#operator::coalesce);
# json_get() of an empty json value is empty, its default stands for a missing path only
# (https://docs.geldata.com/reference/stdlib/json#function::std::json_get).
select {
  b := 2 * <optional int64>$n ?? 10,
  c := 'pre-' ++ <optional str>$a ?? 'none',
  j := json_get(<optional json>$doc, 'a', default := <json>'dflt'),
};
