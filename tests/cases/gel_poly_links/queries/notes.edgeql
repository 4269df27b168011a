select Note {
  kind,
  body,
  level := [is Warning].level,
  about: { title, kind, shout },
} order by .body;
