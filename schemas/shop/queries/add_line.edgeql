# Put a product into an order at its current price; null when the product is already in it.
insert OrderLine {
  order := (select Order filter .id = <uuid>$order_id),
  product := (select Product filter .id = <uuid>$product_id),
  quantity := $quantity,
  unit_price := $unit_price,
}
unless conflict on (.order, .product);
