package worker

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"example.com/schemac/schemas/jobs"
)

// The database at DATABASE_URL must have the jobs migrations applied
// (tests/pants/test_pants_go_consumer.py does that before running `pants test`).
func TestEnqueueAndClaim(t *testing.T) {
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		t.Skip("DATABASE_URL is not set: no database to run the job queue against " +
			"(run through tests/run, or set DATABASE_URL to a database with the jobs migrations)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)

	w := New(conn, "pants-go-consumer")
	id, err := w.Enqueue(ctx, "send-mail", map[string]any{"to": "a@example.com"})
	if err != nil || id == "" {
		t.Fatalf("enqueue: id=%q err=%v", id, err)
	}
	// An equal pending job is absorbed by the partial exclusive constraint.
	dup, err := w.Enqueue(ctx, "send-mail", nil)
	if err != nil || dup != "" {
		t.Fatalf("duplicate enqueue: id=%q err=%v, want \"\" and nil", dup, err)
	}
	status, err := w.Claim(ctx, id)
	if err != nil {
		t.Fatalf("claim: %v", err)
	}
	if status != jobs.QueueStatusRunning || !status.Valid() {
		t.Fatalf("status after claim = %q, want %q", status, jobs.QueueStatusRunning)
	}
	// Claimed, the (name, actor) key is free again.
	again, err := w.Enqueue(ctx, "send-mail", nil)
	if err != nil || again == "" || again == id {
		t.Fatalf("enqueue after claim: id=%q err=%v", again, err)
	}
}
