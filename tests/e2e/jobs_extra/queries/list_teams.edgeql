# Teams with their lead's and members' counters (int64 inside nested shapes).
select Team {
  name,
  lead: { name, processed, quota },
  members: { name, processed, quota },
}
order by .name
limit $take<int64>;
