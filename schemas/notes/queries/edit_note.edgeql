# Changes a note of the signed-in user (none of others': they are skipped).
update Note
  filter .id = <uuid>$id
  set {
    title := <optional str>$title ?? .title,
    body := <optional str>$body ?? .body,
    shared := <optional bool>$shared ?? .shared,
  };
