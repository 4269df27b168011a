# Get-or-insert, `insert T {...} unless conflict on .k else (select T)`
# (https://docs.geldata.com/reference/edgeql/insert#upserts): the existing object is returned,
# not updated, so its update rewrite (https://docs.geldata.com/reference/datamodel/mutation_rewrites)
# does not run and its update triggers (https://docs.geldata.com/reference/datamodel/triggers)
# do not fire; concurrent get-or-inserts return the one object.

type User {
  required email: str {
    constraint exclusive;
  }
  name: str;
  touched_at: datetime {
    rewrite insert, update using (datetime_of_statement());
  }
  required revision: int64 {
    default := 0;
    rewrite update using (__old__.revision + 1);
  }
  trigger log_update after update for each do (
    insert Log { msg := 'update ' ++ __new__.email }
  );
  trigger log_write after insert, update for each do (
    insert Log { msg := 'write ' ++ __new__.email }
  );
}

type Log {
  required msg: str;
}

type Post {
  required title: str;
  required author: User;
}
