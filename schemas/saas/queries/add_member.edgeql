# Add a user to an organization. Null when they are a member already.
insert Membership {
  org := (select Organization filter .id = <uuid>$org_id),
  user := (select User filter .id = <uuid>$user_id),
  role := <optional MemberRole>$role,
  invited_by := (select User filter .id = <optional uuid>$invited_by_id),
}
unless conflict on (.org, .user);
