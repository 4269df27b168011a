# Schedule a draft for publication at a later time.
update Post
  filter .id = <uuid>$id and .status = PublicationStatus.Draft
  set {
    status := PublicationStatus.Scheduled,
    published_at := <datetime>$publish_at,
    updated_at := datetime_current(),
  };
