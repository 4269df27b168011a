# A link set by an exclusive property, a multi link by any filter.
insert Story {
  title := <str>$title,
  author := (select Member filter .telegram_id = <int64>$telegram_id),
  labels := (select Label filter .kind = <str>$label_kind),
}
