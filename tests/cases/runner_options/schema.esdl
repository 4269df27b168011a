# Golden case of the runner target options (options.json): ts_int64="bigint" (int64 results
# decoded to bigint: top level, optional, arrays, nested shapes) and go_driver="database/sql"
# (sql.Null* optional values, NullLevel, arrays/json/nested shapes decoded with pgx's codecs).
enum Level { Low, High }

type Counter {
  required name: str { constraint exclusive; };
  required hits: int64 { default := 0; };
  cap: int64;
  samples: array<int64>;
  labels: array<str>;
  level: Level;
  ratio: float32;
  note: str;
  data: json;
  blob: bytes;
  seen_at: datetime;
}

type Board {
  required title: str { constraint exclusive; };
  lead: Counter;
  multi counters: Counter;
}
