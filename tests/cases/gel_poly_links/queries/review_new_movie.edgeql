# A nested insert of one subtype sets the polymorphic link (its column).
insert Review {
  body := <str>$body,
  subject := (insert Movie { title := <str>$title })
};
