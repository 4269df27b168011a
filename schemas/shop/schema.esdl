# An online shop: customers fill a cart (an Order in status Cart), place it, and pay the
# invoice issued for it (module billing, billing.esdl).

module default {
  # Amounts of money: exact decimals, never negative.
  scalar type Money extending decimal {
    constraint min_value(0);
  };

  # Stock-keeping unit: upper-case code with an optional variant suffix, e.g. TSHIRT-XL.
  scalar type Sku extending str {
    constraint regexp(r'^[A-Z0-9]{3,16}(-[A-Z0-9]{1,8})?$');
  };

  scalar type CurrencyCode extending str {
    constraint regexp(r'^[A-Z]{3}$');
  };

  scalar type OrderStatus extending enum<Cart, Placed, Paid, Shipped, Delivered, Refunded, Cancelled>;

  type Customer {
    required email: str { constraint exclusive; };
    required name: str { constraint max_len_value(200); };
    phone: str;
    # ISO 3166-1 alpha-2 code; customers who signed up before it was asked are in France.
    required country: str { constraint regexp(r'^[A-Z]{2}$'); };
    required marketing_opt_in: bool { default := false; };
    required created_at: datetime {
      default := datetime_current();
      readonly := true;
    };
  }

  type Product {
    required sku: Sku { constraint exclusive; };
    required name: str;
    description: str;
    required price: Money;
    required currency: CurrencyCode { default := 'EUR'; };
    required stock: int32 {
      default := 0;
      constraint min_value(0);
    };
    required active: bool { default := true; };
    categories: array<str>;

    # The storefront lists active products by name.
    index on (.name) filter .active;
  }

  type Order {
    required customer: Customer { on target delete restrict; };
    required status: OrderStatus { default := OrderStatus.Cart; };
    required created_at: datetime {
      default := datetime_current();
      readonly := true;
    };
    placed_at: datetime;
    shipping_address: str;
    # Where the order is shipped from (unset until it is picked).
    ship_from: Warehouse { on target delete restrict; };
    note: str { constraint max_len_value(1000); };

    # A customer has at most one open cart; placed and older orders are not constrained.
    constraint exclusive on (.customer) filter .status = OrderStatus.Cart;
    constraint expression on (.status = OrderStatus.Cart or exists .placed_at);

    index on ((.customer, .created_at));
    # The back office lists placed orders by status, oldest first.
    index on ((.status, .placed_at));
  }

  type Warehouse {
    required code: str { constraint exclusive; };
    required city: str;
  }

  type OrderLine {
    required order: Order { on target delete delete source; };
    required product: Product { on target delete restrict; };
    required quantity: int32 { constraint min_value(1); };
    # The price when the line was added; later price changes do not alter open orders.
    required unit_price: Money;

    constraint exclusive on ((.order, .product));
  }
}

# Migration hints for the second migration (see docs/migrations.md).
migration {
  fill Customer.country using ('FR');
}
