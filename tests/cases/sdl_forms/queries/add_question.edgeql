insert Question {
  title := <str>$title,
  topics := (select Topic filter .name in array_unpack(<array<str>>$topics)),
};
