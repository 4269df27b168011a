# {**}: every property and every link with its properties (camelCase file name).
select Book {**}
filter .id = <uuid>$id;
