# for over json_object_unpack (https://docs.geldata.com/reference/stdlib/json#function::std::json_object_unpack):
# one upsert per member of the object, its key k.0 and its json value k.1 (to_str: its JSON text).
for k in json_object_unpack(<json>$kinds) union (
  with kind := to_str(k.1),
  insert Label { name := k.0, kind := kind }
  unless conflict on .name
  else (update Label set { kind := kind })
)
