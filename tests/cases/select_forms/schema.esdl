# Selects of values and free objects, with-bound selections, nested shape clauses
# (https://docs.geldata.com/reference/edgeql/select): see tests/e2e/test_select_forms_e2e.py.
module default {
  global current_user_id: uuid;
  global current_user := (select User filter .id = global current_user_id);
  type User {
    required name: str { constraint exclusive; };
    email: str;
    active: bool { default := true; };
    multi friends: User;
    posts := .<author[is Post];
  }
  type Post {
    required title: str;
    published: bool { default := false; };
    required author: User;
  }
}
module blog {
  type Note { required body: str; }
}
