# Move an organization to another plan and seat limit.
update Organization
  filter .slug = <str>$slug and not exists .deleted_at
  set { plan := <Plan>$plan, seat_limit := <optional int32>$seat_limit, updated_at := datetime_current() };
