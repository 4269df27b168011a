# Archive every draft and published post of an author (e.g. when the account is suspended).
update Post
  filter .author = <uuid>$author_id and .status != PublicationStatus.Archived
  set { status := PublicationStatus.Archived, updated_at := datetime_current() };
