insert Note {
  body := <str>$body,
  owner := global current_user,
  tenant := global tenant,
};
