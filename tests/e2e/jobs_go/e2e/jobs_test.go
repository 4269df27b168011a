// End-to-end test of the generated Go runner of schemas/jobs (see test_jobs_e2e.py): the
// design note's behaviours against the database in $DATABASE_URL, through pgx v5.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strconv"
	"sync"
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
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = 32
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
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

	// select and delete: typed rows, cardinality, Gel's ordering.
	if _, err := pool.Exec(ctx, "TRUNCATE job"); err != nil {
		t.Fatal(err)
	}
	b, err := runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "b-job", Actor: "w", Payload: json.RawMessage(`{"n": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []gen.EnqueueJobStrictParams{{Name: "a-job", Actor: "w"}, {Name: "c-job", Actor: "other"}} {
		if _, err := runner.Query.EnqueueJobStrict(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	pending, err := runner.Query.ListPendingJobs(ctx, gen.ListPendingJobsParams{Actor: "w", Max: 10})
	if err != nil || len(pending) != 2 || pending[0].Name != "a-job" || pending[1].ID != b.ID {
		t.Fatalf("list_pending_jobs: %+v, %v", pending, err)
	}
	if pending[0].Payload != nil || string(pending[1].Payload) != `{"n": 1}` || *pending[1].Status != gen.QueueStatusPending {
		t.Fatalf("list_pending_jobs rows: %+v", pending)
	}
	job, err := runner.Query.GetJob(ctx, gen.GetJobParams{ID: b.ID})
	if err != nil || job == nil || job.ClaimedAt != nil || job.Name != "b-job" {
		t.Fatalf("get_job: %+v, %v", job, err)
	}
	if missing, err := runner.Query.GetJob(ctx, gen.GetJobParams{ID: "00000000-0000-0000-0000-000000000000"}); err != nil || missing != nil {
		t.Fatalf("get_job of a missing id: %+v, %v", missing, err)
	}
	if _, err := pool.Exec(ctx, "UPDATE job SET status = 'Processed', processed_at = now() - interval '2 days' WHERE id = $1", b.ID); err != nil {
		t.Fatal(err)
	}
	purged, err := runner.Query.PurgeJobs(ctx, gen.PurgeJobsParams{Before: time.Now().Add(-24 * time.Hour)})
	if err != nil || len(purged) != 1 || purged[0].ID != b.ID {
		t.Fatalf("purge_jobs: %+v, %v", purged, err)
	}

	// Upsert: the Pending twin's payload is refreshed, and the same id comes back.
	up1, err := runner.Query.UpsertJob(ctx, gen.UpsertJobParams{Name: "up", Actor: "w", Payload: json.RawMessage(`{"v": 1}`)})
	if err != nil {
		t.Fatal(err)
	}
	up2, err := runner.Query.UpsertJob(ctx, gen.UpsertJobParams{Name: "up", Actor: "w", Payload: json.RawMessage(`{"v": 2}`)})
	if err != nil || up2.ID != up1.ID {
		t.Fatalf("upsert_job: %+v, %v", up2, err)
	}

	// Bulk: 1,000 jobs in one statement; a repeat inside the batch is skipped.
	names := make([]string, 0, 1001)
	for i := 0; i < 1000; i++ {
		names = append(names, "bulk-"+strconv.Itoa(i))
	}
	bulk, err := runner.Query.EnqueueJobs(ctx, gen.EnqueueJobsParams{Names: append(names, "bulk-1"), Actor: "b"})
	if err != nil || len(bulk) != 1000 {
		t.Fatalf("enqueue_jobs: %d rows, %v", len(bulk), err)
	}

	// Concurrency: 32 concurrent enqueues of one key leave exactly one Pending row.
	if _, err := pool.Exec(ctx, "TRUNCATE job"); err != nil {
		t.Fatal(err)
	}
	type outcome struct {
		row *gen.EnqueueJobRow
		err error
	}
	results := make(chan outcome, 32)
	var wg sync.WaitGroup
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "race", Actor: "r"})
			results <- outcome{row, err}
		}()
	}
	wg.Wait()
	close(results)
	won := 0
	for r := range results {
		if r.err != nil {
			t.Fatalf("concurrent enqueue: %v", r.err)
		}
		if r.row != nil {
			won++
		}
	}
	if won != 1 || pendingCount(t, pool, "race", "r") != 1 {
		t.Fatalf("concurrent enqueue: %d inserted", won)
	}
	strictErrs := make(chan error, 32)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "race2", Actor: "r"})
			strictErrs <- err
		}()
	}
	wg.Wait()
	close(strictErrs)
	ok, dups := 0, 0
	for err := range strictErrs {
		var dup *gen.UqJobNameActorError
		switch {
		case err == nil:
			ok++
		case errors.As(err, &dup):
			dups++
		default:
			t.Fatalf("concurrent strict enqueue: %v", err)
		}
	}
	if ok != 1 || dups != 31 {
		t.Fatalf("concurrent strict enqueue: %d ok, %d typed duplicates", ok, dups)
	}
}
