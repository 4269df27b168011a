# Publish a draft or scheduled post now. Resolves to null when the post does not exist or is
# already published or archived.
update Post
  filter .id = <uuid>$id
    and .status in { PublicationStatus.Draft, PublicationStatus.Scheduled }
  set {
    status := PublicationStatus.Published,
    published_at := datetime_of_transaction(),
    updated_at := datetime_of_transaction(),
  };
