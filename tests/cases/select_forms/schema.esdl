# Selects of values and free objects (https://docs.geldata.com/reference/edgeql/select):
# see tests/e2e/test_select_forms_e2e.py.
module default {
  type User {
    required name: str { constraint exclusive; };
    email: str;
    active: bool { default := true; };
  }
}
