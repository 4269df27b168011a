# Promote or demote a member (at most one row: (org, user) is exclusive).
update Membership
  filter .org = <uuid>$org_id and .user = <uuid>$user_id
  set { role := <MemberRole>$role, updated_at := datetime_current() };
