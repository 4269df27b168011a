# Writes in a free object's fields (musicbot's soft_clean): each runs once, as a statement bound
# in `with` does; count() of one is the number of objects it wrote, a shape reads the objects.
select {
  stories_deleted := count((delete Story filter .views < <int32>$fewer_views)),
  member := (insert Member { name := <str>$name, telegram_id := <int64>$telegram_id }) { name },
}
