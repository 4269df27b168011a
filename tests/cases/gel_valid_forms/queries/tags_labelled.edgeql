# One Tag per label: a label repeated in the batch fails the statement (Postgres cannot
# update one row twice), and is not an assert_single violation.
for l in array_unpack(<array<str>>$labels) union (
  insert Tag { label := l } unless conflict on .label else (select Tag)
);
