# A bulk insert bound in with, reading a json member of a with name, its objects selected in
# the shape of another bound insert (https://docs.geldata.com/reference/edgeql/for,
# https://docs.geldata.com/reference/edgeql/with).
with
  params := <json>$params,
  story_params := params['stories'],
  m := (insert Member { name := <str>params['name'], telegram_id := <int64>params['telegram_id'] }),
  stories := (
    for s in json_array_unpack(story_params) union (
      insert Story { title := <str>s['title'], author := m }
    )
  )
select m { name, stories := stories { title, author_name := .author.name }, story_ids := stories };
