# Check out: the cart becomes a placed order. Null unless the order is an open cart.
update Order
  filter .id = <uuid>$id and .status = OrderStatus.Cart
  set {
    status := OrderStatus.Placed,
    placed_at := datetime_of_transaction(),
    shipping_address := <str>$shipping_address,
    note := $note,
  };
