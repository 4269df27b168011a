# The write forms of issue 12 (tests/compiler/test_query_dml_case.py, tests/e2e/test_query_dml_e2e.py):
# links set by any filter, multi link changes by any filter, {} assignments, upserts whose else
# update filters.
type Member {
  required name: str { constraint exclusive; };
  required telegram_id: int64 { constraint exclusive; };
  nick: str;
}

type Label {
  required name: str { constraint exclusive; };
  kind: str;
}

type Story {
  required title: str;
  required author: Member;
  editor: Member;
  views: int32 { default := 0; };
  multi labels: Label {
    weight: int32 { default := 1; };
  };
}
