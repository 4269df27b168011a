// End-to-end test of the generated Go runner of schemas/jobs (see test_jobs_e2e.py): the
// design note's behaviours against the database in $DATABASE_URL, through pgx v5.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	gen "schemactest/jobs"
)

func pendingCount(t *testing.T, db *pgxpool.Pool, name, actor string) int {
	t.Helper()
	var n int
	err := db.QueryRow(context.Background(),
		"SELECT count(*) FROM job WHERE name = $1 AND actor = $2 AND status = 'Pending'", name, actor).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestJobs(t *testing.T) {
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	// The test runs once per Go toolchain on the same database: start from an empty queue.
	if _, err := pool.Exec(ctx, "TRUNCATE job"); err != nil {
		t.Fatal(err)
	}
	runner := gen.New(pool)

	// Enqueue; a Pending twin is absorbed by unless conflict (nil, nil; still one row).
	first, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1", Payload: json.RawMessage(`{"to":"a@example.com"}`)})
	if err != nil || first == nil {
		t.Fatalf("first enqueue: %v, %v", first, err)
	}
	twin, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1"})
	if err != nil || twin != nil {
		t.Fatalf("twin should be absorbed: %v, %v", twin, err)
	}
	if n := pendingCount(t, pool, "email", "u1"); n != 1 {
		t.Fatalf("pending rows = %d, want 1", n)
	}

	// The plain insert returns the typed error.
	_, err = runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "email", Actor: "u1"})
	var dup *gen.UqJobNameActorError
	if !errors.As(err, &dup) {
		t.Fatalf("want *UqJobNameActorError, got %T %v", err, err)
	}
	if !errors.Is(err, gen.ErrExclusiveViolation) {
		t.Fatal("errors.Is(err, ErrExclusiveViolation) should hold")
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || dup.Constraint() != "uq_job_name_actor" {
		t.Fatalf("driver error not kept: %v", err)
	}

	// Claiming moves the row to Running, sets claimed_at, and frees the key.
	claimed, err := runner.Query.ClaimJob(ctx, gen.ClaimJobParams{ID: first.ID})
	if err != nil || claimed == nil || claimed.ID != first.ID {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	var status gen.QueueStatus
	var claimedAt *time.Time
	if err := pool.QueryRow(ctx, "SELECT status, claimed_at FROM job WHERE id = $1", first.ID).Scan(&status, &claimedAt); err != nil {
		t.Fatal(err)
	}
	if status != gen.QueueStatusRunning || !status.Valid() || claimedAt == nil {
		t.Fatalf("after claim: status=%q claimed_at=%v", status, claimedAt)
	}
	again, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1"})
	if err != nil || again == nil || again.ID == first.ID {
		t.Fatalf("re-enqueue while running: %v, %v", again, err)
	}

	// Unknown id: nil, nil.
	none, err := runner.Query.ClaimJob(ctx, gen.ClaimJobParams{ID: "00000000-0000-0000-0000-000000000000"})
	if err != nil || none != nil {
		t.Fatalf("claim unknown: %v, %v", none, err)
	}

	// A nil json.RawMessage stores NULL; a JSON array is stored as a JSON array.
	arr, err := runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "arr", Actor: "u1", Payload: json.RawMessage(`[1,"two"]`)})
	if err != nil {
		t.Fatal(err)
	}
	null, err := runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "null", Actor: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	var kind *string
	if err := pool.QueryRow(ctx, "SELECT jsonb_typeof(payload) FROM job WHERE id = $1", arr.ID).Scan(&kind); err != nil || kind == nil || *kind != "array" {
		t.Fatalf("array payload: %v %v", kind, err)
	}
	if err := pool.QueryRow(ctx, "SELECT jsonb_typeof(payload) FROM job WHERE id = $1", null.ID).Scan(&kind); err != nil || kind != nil {
		t.Fatalf("nil payload should be NULL: %v %v", kind, err)
	}

	// WithTx: work in a rolled-back transaction leaves nothing behind.
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WithTx(tx).Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "tx", Actor: "u2"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pendingCount(t, pool, "tx", "u2"); n != 0 {
		t.Fatalf("rolled back rows = %d", n)
	}
	var _ gen.DBTX = (pgx.Tx)(nil)
}
