# Computed properties and links, backlinks
# (https://docs.geldata.com/reference/datamodel/computeds,
#  https://docs.geldata.com/reference/datamodel/links#backlinks): nothing is stored; queries
# that read them get the expression inlined.

global viewer_id: uuid;

type User {
  required first_name: str;
  last_name: str;
  # Empty when last_name is empty, as '++' with an empty operand is in Gel.
  property full_name := .first_name ++ ' ' ++ .last_name;
  multi link posts := .<author[is Post];
  post_count := count(.<author[is Post]);
}

type Post {
  required title: str;
  required author: User;
  multi tags: Tag;
  property shout -> str {
    using (str_upper(.title));
  };
  is_mine := .author.id ?= global viewer_id;
}

type Tag {
  required name: str {
    constraint exclusive;
  };
  multi link posts := .<tags[is Post];
  link go := (select Tag filter .name = 'go');
}
