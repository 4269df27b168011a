# Add a product to the catalogue; null when the SKU exists.
insert Product {
  sku := $sku,
  name := $name,
  description := $description,
  price := $price,
  currency := $currency,
  stock := $stock,
  categories := $categories,
}
unless conflict on .sku;
