# A new note of the signed-in user.
insert Note {
  title := <str>$title,
  body := <optional str>$body,
  shared := <optional bool>$shared ?? false,
  owner := global current_user,
};
