# Take `quantity` items out of stock. Null when the product is unknown, inactive or has too
# few items left (the filter keeps stock from going negative without raising).
update Product
  filter .id = <uuid>$product_id and .active and .stock >= $quantity
  set { stock := .stock - $quantity };
