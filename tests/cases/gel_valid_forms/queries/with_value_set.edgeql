# A with name bound to a set of values (https://docs.geldata.com/reference/edgeql/with).
with xs := {1, 2, 3}, t := <optional str>$t
select { n := count(xs), total := sum(xs), values := array_agg(xs), has_t := count(t) };
