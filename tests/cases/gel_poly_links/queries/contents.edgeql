select Content {
  kind,
  title,
  shout,
  [is Movie].release_year,
  seasons := [is Show].seasons,
  note_ids := [is Movie].notes ?? {},
} filter .title != <str>$skip order by .title desc limit <int64>$n;
