insert Post {
  title := <str>$title,
  tags := (select Tag filter .id in array_unpack(<array<uuid>>$tags)),
}
