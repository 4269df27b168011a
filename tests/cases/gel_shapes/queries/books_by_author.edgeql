# A property through a single link (a path) in a filter, an order and a computed element.
select Book { title, by := .author.name }
filter .author.name ilike <str>$pattern
order by .author.name then .title;
