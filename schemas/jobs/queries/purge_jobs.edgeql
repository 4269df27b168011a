# Delete finished (Processed or Failed) jobs processed before a cut-off.
delete Job
  filter .status in { QueueStatus.Processed, QueueStatus.Failed } and .processed_at < <datetime>$before;
