# Mutation rewrites (https://docs.geldata.com/reference/datamodel/mutation_rewrites), triggers
# (https://docs.geldata.com/reference/datamodel/triggers) and deletion policies
# (https://docs.geldata.com/reference/datamodel/links#deletion-policies), lowered to Postgres
# triggers and foreign keys: they hold for the generated runners' statements as for any SQL.

type Image {
  required url: str;
}

type Tag {
  required name: str;
}

type Author {
  required name: str;
  # Deleting an author deletes its posts no other author lists, and its avatar.
  multi posts: Post {
    on source delete delete target if orphan;
  }
  avatar: Image {
    on source delete delete target;
  }
}

type Post {
  required title: str;
  slug: str {
    rewrite insert, update using (str_lower(str_trim(.title)));
  }
  required created_at: datetime {
    rewrite insert using (datetime_of_statement());
  }
  modified_at: datetime {
    rewrite update using (datetime_of_statement());
  }
  required revision: int64 {
    default := 0;
    rewrite update using (__old__.revision + 1);
  }
  # Deleting a tag deletes the posts that have it.
  multi tags: Tag {
    on target delete delete source;
  }

  # A global the trigger reads: each generated write hands the runner's globals over.
  trigger log_insert after insert for each do (
    insert Log { action := 'insert', title := __new__.title, actor := global actor }
  );
  trigger log_update after update for each when (__old__.title != __new__.title) do (
    insert Log { action := 'rename', title := __old__.title ++ ' -> ' ++ __new__.title }
  );
  # A set of statements, in order; an update of another type.
  trigger log_delete after delete for each do ({
    (insert Log { action := 'delete', title := __old__.title, actor := global actor }),
    (update Counter filter .name = 'posts' set { n := .n - 1 }),
  });
  trigger count_insert after insert for each do (
    update Counter filter .name = 'posts' set { n := .n + 1 }
  );
  # Validation: the statement fails with the message.
  trigger no_shouting after insert, update for each do (
    assert(__new__.title != str_upper(__new__.title), message := 'no shouting')
  );
}

type Counter {
  required name: str;
  required n: int64 {
    default := 0;
  }
}

type Log {
  required action: str;
  required title: str;
  actor: str;
}

global actor: str;
