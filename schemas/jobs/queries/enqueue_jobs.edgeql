# Enqueue many jobs of one actor in one round trip; names with a Pending twin (or repeated in
# the batch) are skipped.
for name in array_unpack(<array<str>>$names) union (
  insert Job { name := name, actor := $actor }
    unless conflict on (.name, .actor)
);
