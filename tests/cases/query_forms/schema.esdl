# The query forms of issue 4 beyond plain statements: with blocks, json bulk inserts, multi
# link changes in updates, link properties in shapes, partial updates.
type Account {
  required email: str { constraint exclusive; };
  name: str;
}

type Tag {
  required name: str { constraint exclusive; };
}

type Post {
  required title: str;
  required slug: str { constraint exclusive; };
  body: str;
  views: int32 { default := 0; };
  labels: array<str>;
  published_at: datetime;
  required author: Account;
  multi tags: Tag {
    position: int32 { default := 0; };
    note: str;
  };
}
