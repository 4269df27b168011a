# A set of values: set literals and array elements united in the order written, an empty value
# no element (https://docs.geldata.com/reference/edgeql/sets, .../stdlib/set#operator::union).
select {<optional str>$first, 'b'} union array_unpack(<array<str>>$more);
