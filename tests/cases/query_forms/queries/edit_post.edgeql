# Partial update: an omitted (or null) value leaves the property as it is.
update Post filter .id = <uuid>$id
set { title := $title ?? .title, body := $body ?? .body, views := <optional int32>$views ?? .views };
