# Each value once (https://docs.geldata.com/reference/stdlib/set#operator::distinct).
select distinct ({1, 2} union array_unpack(<array<int64>>$xs));
