# A multi-author blog: users write posts, readers comment, posts carry ordered tags.
# Written in a mix of schemac's spelling (`name: type`) and Gel's (`property name -> type`).

module default {
  # URL-safe identifiers: lower-case words joined by single hyphens.
  scalar type Slug extending str {
    constraint min_len_value(1);
    constraint max_len_value(80);
    constraint regexp(r'^[a-z0-9]+(-[a-z0-9]+)*$');
  };

  enum PublicationStatus { Draft, Scheduled, Published, Archived }

  abstract type Timestamped {
    required created_at: datetime {
      default := datetime_current();
      readonly := true;
    };
    required updated_at: datetime { default := datetime_current(); };
  }

  type User extending Timestamped {
    required email: str {
      constraint exclusive;
      constraint max_len_value(320);
    };
    required handle: Slug { constraint exclusive; };
    required property display_name -> str {
      constraint min_len_value(1);
      constraint max_len_value(100);
    };
    bio: str;
    required is_admin: bool { default := false; };

    index on (str_lower(.email));
  }

  type Tag {
    required name: str { constraint max_len_value(50); };
    required slug: Slug { constraint exclusive; };
  }

  type Post extending Timestamped {
    required title: str {
      constraint min_len_value(1);
      constraint max_len_value(200);
    };
    required slug: Slug;
    required link author -> User {
      on target delete delete source;
    };
    required status: PublicationStatus { default := PublicationStatus.Draft; };
    body: str;
    excerpt: str { constraint max_len_value(500); };
    published_at: datetime;
    required reading_minutes: int32 {
      default := 0;
      constraint min_value(0);
    };
    multi link tags -> Tag {
      on target delete allow;
      property position -> int16 {
        default := 0;
        constraint min_value(0);
      };
    };

    # A slug is unique per author: /@handle/slug.
    constraint exclusive on ((.author, .slug));
    # A published post always has a publication time.
    constraint expression on (.status != PublicationStatus.Published or exists .published_at);

    index on ((.status, .published_at));
  }

  type Comment extending Timestamped {
    required link post -> Post { on target delete delete source; };
    # Comments outlive their author's account.
    link author -> User { on target delete allow; };
    required body: str {
      constraint min_len_value(1);
      constraint max_len_value(10000);
    };
    required is_hidden: bool { default := false; };
  }
}
