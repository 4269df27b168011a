# The story's author is the member of that name, or a new one (Gel's get-or-insert:
# https://docs.geldata.com/reference/edgeql/insert#conditional-inserts).
with author_name := <str>$author
select (insert Story {
  title := <str>$title,
  author := (
    with m := (select Member filter .name = author_name)
    select if exists m then m else (insert Member { name := author_name, telegram_id := <int64>$telegram_id })
  ),
}) { title, author_name := .author.name, author_tg := .author.telegram_id };
