# Add a user; `order` falls back to its default when omitted.
insert User { select := $select, order := $order };
