# detached (https://docs.geldata.com/reference/edgeql/paths#detached): every item, not the one
# the shape is about.
select Item { title, total := count(detached Item), same_year := count((select detached Item filter .year = <int32>$year)) }
filter .year = <int32>$year
order by .title
