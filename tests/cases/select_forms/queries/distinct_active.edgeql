# assert_distinct() of a selection of objects: its objects are distinct, the check never fails
# (https://docs.geldata.com/reference/stdlib/set#function::std::assert_distinct).
select assert_distinct((select User { name } filter .active order by .name));
