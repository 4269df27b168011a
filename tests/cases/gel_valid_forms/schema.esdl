# Valid Gel that schemac once refused with a wrong error (tests/e2e/test_gel_valid_forms_e2e.py):
# set functions of sets of values, json/bytes ++, type aliases in with, positional parameters,
# assert_* with their runtime errors, a multi property from array_unpack; a bulk get-or-insert
# repeating a key fails with the driver's error, not as an assertion.
module default {
  type Person {
    required name: str;
    tags: array<str>;
    multi nicknames: str;
  }
  type Book {
    required title: str;
    author: Person;
  }
  type Tag {
    required label: str { constraint exclusive; }
  }
}
