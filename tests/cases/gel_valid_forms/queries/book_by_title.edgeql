# A type alias in with (https://docs.geldata.com/reference/edgeql/with).
with B := Book
select B { title, author: { name } } filter .title = <str>$t;
