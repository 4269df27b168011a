# The job queue from the design note: at most one Pending job per (name, actor).
enum QueueStatus { Pending, Running, Failed, Processed }

type Job {
  required name: str;
  required actor: str;
  payload: json;
  status: QueueStatus { default := QueueStatus.Pending };
  claimed_at: datetime;
  processed_at: datetime;

  # Uniqueness only among Pending rows — Running/Failed/Processed are unconstrained.
  constraint exclusive on (.name, .actor) filter .status = QueueStatus.Pending;
}
