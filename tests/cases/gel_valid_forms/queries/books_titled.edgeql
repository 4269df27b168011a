# assert_exists of several objects: they pass through, none fails the statement
# (https://docs.geldata.com/reference/stdlib/set#function::std::assert_exists).
select assert_exists((select Book filter .title = <str>$t)) { title };
