# A new note of the signed-in user (the owner link's default).
insert Note {
  title := <str>$title,
  body := <optional str>$body,
  shared := <optional bool>$shared ?? false,
};
