# Reprice and recategorise a product; deactivating hides it from the storefront.
update Product
  filter .sku = <str>$sku
  set {
    price := $price,
    categories := $categories,
    active := $active,
  };
