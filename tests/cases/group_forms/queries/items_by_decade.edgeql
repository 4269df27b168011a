with recent := (select Item filter .year >= <int32>$since)
group recent { title }
using decade := .year // 10, has_colon := .title like '%:%'
by decade, has_colon
