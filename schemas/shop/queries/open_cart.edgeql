# Open the customer's cart. Null when the customer already has an open cart (the partial
# exclusive constraint on Order, status = Cart, is the arbiter).
insert Order {
  customer := (select Customer filter .id = <uuid>$customer_id),
}
unless conflict on .customer;
