# A post by the user with this e-mail, inserted when there is none.
insert Post {
  title := <str>$title,
  author := (
    insert User { email := <str>$email }
    unless conflict on .email
    else (select User)
  ),
};
