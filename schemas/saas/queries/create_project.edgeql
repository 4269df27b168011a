# Create a project in an organization. Null when the organization has a project with this slug;
# a live project with the same name raises UqProjectOrgIdNameError.
insert Project {
  org := (select Organization filter .id = <uuid>$org_id),
  name := <str>$name,
  slug := <str>$slug,
  description := <optional str>$description,
  labels := <array<str>>$labels,
}
unless conflict on (.org, .slug);
