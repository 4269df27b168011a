# Create a tenant; null when the slug is taken.
insert Organization {
  name := <str>$name,
  slug := <str>$slug,
  plan := <optional Plan>$plan,
  seat_limit := <optional int32>$seat_limit,
}
unless conflict on .slug;
