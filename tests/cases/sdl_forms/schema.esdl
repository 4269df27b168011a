# Gel schema forms of issue 11 (tests/compiler/test_gel_exclusive_expressions.py,
# tests/e2e/test_sdl_forms_e2e.py): exclusive constraints on expressions
# (https://docs.geldata.com/reference/datamodel/constraints), delegated to each concrete subtype
# of an abstract type; computed properties that are sets of values through a multi link.
module default {
  # A singleton: every object of a type has the same key, so each type holds one at most.
  abstract type Singleton {
    delegated constraint exclusive on (true);
  }

  type Settings extending Singleton {
    required motd: str;
  }

  type Banner extending Singleton {
    text: str;
  }

  type Handle {
    required realm: str;
    required name: str;
    code: str;
    code_lc := str_lower(.code);
    # one name per realm, whatever its case
    constraint exclusive on ((.realm, str_lower(.name)));
    # through a computed property of the object's own columns
    constraint exclusive on (.code_lc);
  }

  type Topic {
    required name: str;
    note: str;
  }

  type Question {
    required title: str;
    multi topics: Topic;
    pin: Topic;
    # sets of values through a multi link (https://docs.geldata.com/reference/datamodel/computeds)
    topic_names := .topics.name;
    topic_notes := .topics.note;
  }
}
