# assert_distinct of a set of values (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct).
select assert_distinct(array_unpack(<array<int64>>$xs));
