# A for loop's update of a type with access policies (https://docs.geldata.com/reference/edgeql/for):
# objects the update read policies hide are skipped, a value the update write policies refuse
# fails the whole statement.
for item in array_unpack(<array<json>>$items) union (
  update Note filter .id = <uuid>item['id'] set { body := <str>item['body'] }
)
