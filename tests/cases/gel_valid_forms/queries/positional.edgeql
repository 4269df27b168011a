# Positional parameters (https://docs.geldata.com/reference/edgeql/parameters): arguments arg0, arg1.
select Person { name } filter .name = <str>$0 or .name ?= <optional str>$1 order by .name;
