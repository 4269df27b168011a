# Gel forms real schemas use that schemac once refused (tests/e2e/test_gel_schema_forms_e2e.py):
# std::-qualified functions, bigint and decimal literals (12n, 0.5n), a property's constraint of
# the same kind as its custom scalar's, a single link set to (select T ... limit 1), re_replace(),
# a link whose default inserts its object, a single computed link A ?? B of backlinks, Badge is Gold.
module default {
  scalar type Handle extending str {
    constraint min_len_value(2);
  }
  type Member {
    required handle: Handle {
      constraint min_len_value(3);
      constraint exclusive;
    }
    required joined: datetime {
      default := std::datetime_of_statement();
    }
    required karma: bigint {
      default := 10n;
      constraint min_value(0n);
    }
    required ratio: decimal {
      default := 0.5n;
    }
    required wallet: Wallet {
      default := (insert Wallet { coins := 5 });
      constraint exclusive;
      on source delete delete target;
    }
    savings: Wallet {
      constraint exclusive;
    }
  }
  type Wallet {
    required coins: int64 {
      default := 0;
    }
    single link holder := .<wallet[is Member] ?? .<savings[is Member];
    property holder_handle := .holder.handle;
  }
  type Post {
    required title: str;
    required author: Member;
    editor: Member;
  }
  abstract type Badge {
    required label: str;
  }
  type GoldBadge extending Badge;
  type PlainBadge extending Badge;
}
