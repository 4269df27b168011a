# Count processed jobs of a worker and return its counters.
select (
  update Worker filter .name = $name set { processed := .processed + $by<int64> }
) { name, processed, quota, recent };
