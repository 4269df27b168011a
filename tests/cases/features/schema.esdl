# Every schema feature in one library, in a mix of our and Gel spellings.
using future simple_scoping;

module default {
  scalar type Slug extending str {
    constraint max_len_value(40);
    constraint regexp(r'^[a-z0-9-]+$');
  };
  scalar type Visibility extending enum<Public, 'Members only', Private>;
  enum Role { Reader, Writer, Admin }

  abstract type Timestamped {
    required created_at: datetime { default := datetime_current(); readonly := true; };
    updated_at: datetime;
  }

  abstract type Named {
    required property name -> str {
      constraint min_len_value(1);
      constraint max_len_value(200);
    };
    index on (str_lower(.name));
  }

  type Account extending Timestamped, Named {
    annotation description := 'A person who can log in.';
    required email: str {
      constraint exclusive;
      annotation title := 'Login e-mail';
    };
    role: Role { default := Role.Reader };
    age: int16 { constraint min_value(13); constraint max_ex_value(150); };
    multi nicknames: str;
    tags: array<str>;
    score: float64 { constraint expression on (__subject__ >= 0.0); };
    overloaded required name: str { default := 'anonymous' };
    index pg::gin on (.tags);
  }

  type Post extending Timestamped {
    required title: str;
    required slug: Slug;
    visibility: Visibility { default := Visibility.Public };
    required link author -> Account { on target delete delete source; };
    editor: Account { on target delete allow; };
    multi link tags -> Tag {
      on target delete allow;
      property weight -> int32 { default := 1; constraint min_value(0); };
    };
    body: str;
    kind: str { constraint one_of('note', 'article'); default := 'note' };
    constraint exclusive on ((.author, .slug));
    constraint exclusive on (.title) except (.visibility = Visibility.Private);
    constraint expression on (.updated_at >= .created_at);
    index on (.visibility) filter .visibility != Visibility.Private;
  }

  type Tag {
    required name: Slug { constraint exclusive; };
  }
}

module billing {
  type Invoice {
    required number: int64 { constraint exclusive; };
    required account: default::Account;
    status: str { default := 'open'; };
  }
}
