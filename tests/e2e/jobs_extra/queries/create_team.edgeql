insert Team {
  name := $name,
  lead := (select Worker filter .id = $lead_id),
  members := (select Worker filter .id in array_unpack(<array<uuid>>$member_ids)),
};
