# Test-only additions to schemas/jobs for the runner-option tests (test_runner_options_e2e.py):
# int64 values at the top level, optional, in arrays and inside nested shapes, and the other
# value kinds a database/sql runner must scan (arrays, bytes, float32, an optional enum, links).
type Worker {
  required name: str { constraint exclusive; };
  required processed: int64 { default := 0; };
  quota: int64;
  recent: array<int64>;
  tags: array<str>;
  status: QueueStatus;
  rating: float32;
  avatar: bytes;
  current: Job;
  multi history: Job;
}

type Team {
  required name: str { constraint exclusive; };
  lead: Worker;
  multi members: Worker;
}
