# Questions on a topic, with the names and notes of all their topics.
select Question {
  title,
  topic_names,
  topic_notes,
  n := count(.topic_names),
}
filter <str>$topic in .topic_names
order by .title;
