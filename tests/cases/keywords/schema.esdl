# Identifiers that are SQL keywords, a quoted enum member, a module block, and a partial
# exclusive constraint whose predicate reads a keyword-named column.
module default {
  enum Kind { "select", user, "in progress" }

  type User {
    required select: str { constraint exclusive; };
    order: int32 { default := 0 };
    kind: Kind { default := Kind.user };
    created_at: datetime { default := datetime_current() };
  }

  type Order {
    required user: str;
    required table: str;
    group: int64;
    note: str;
    constraint exclusive on (.user, .table) filter .group > 0 and .note != 'draft';
  }
}
