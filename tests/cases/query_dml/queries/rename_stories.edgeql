for item in json_array_unpack(<json>$items) union (
  with
    sid := <uuid>item['id'],
    title := <str>item['title'],
  update Story filter .id = sid set { title := title }
)
