// Package worker is a tiny job worker on top of the generated jobs package.
package worker

import (
	"context"
	"encoding/json"
	"fmt"

	"example.com/schemac/schemas/jobs"
)

// Worker enqueues and claims jobs of one actor.
type Worker struct {
	Actor  string
	runner *jobs.Runner
}

// New returns a Worker for actor on db (a *pgx.Conn, *pgxpool.Pool or pgx.Tx).
func New(db jobs.DBTX, actor string) *Worker {
	return &Worker{Actor: actor, runner: jobs.New(db)}
}

// Enqueue adds a pending job; it returns "" when an equal job is already pending.
func (w *Worker) Enqueue(ctx context.Context, name string, payload any) (string, error) {
	var raw json.RawMessage // nil: no payload (NULL)
	if payload != nil {
		var err error
		if raw, err = json.Marshal(payload); err != nil {
			return "", err
		}
	}
	row, err := w.runner.Query.EnqueueJob(ctx, jobs.EnqueueJobParams{
		Name: name, Actor: w.Actor, Payload: raw,
	})
	if err != nil {
		return "", fmt.Errorf("enqueue %q: %w", name, err)
	}
	if row == nil {
		return "", nil
	}
	return row.ID, nil
}

// Claim moves the job off Pending and returns its status afterwards.
func (w *Worker) Claim(ctx context.Context, id string) (jobs.QueueStatus, error) {
	claimed, err := w.runner.Query.ClaimJob(ctx, jobs.ClaimJobParams{ID: id})
	if err != nil {
		return "", err
	}
	if claimed == nil {
		return "", fmt.Errorf("claim %s: no such job", id)
	}
	job, err := w.runner.Query.GetJob(ctx, jobs.GetJobParams{ID: id})
	if err != nil || job == nil || job.Status == nil {
		return "", fmt.Errorf("get %s: %v (%v)", id, err, job)
	}
	return *job.Status, nil
}
