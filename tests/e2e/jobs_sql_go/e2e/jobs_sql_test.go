// End-to-end test of the Go runner of schemas/jobs plus tests/e2e/jobs_extra compiled with
// go_driver="database/sql" (see test_runner_options_e2e.py): the jobs behaviours of
// tests/e2e/jobs_go through *sql.DB and pgx's stdlib driver, sql.Null* optional values, arrays,
// json and nested shapes decoded with pgx's codecs, and typed errors from *pgconn.PgError.
package e2e

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	gen "schemactest/jobs"
)

// The runner takes any of database/sql's handles.
var (
	_ gen.DBTX = (*sql.DB)(nil)
	_ gen.DBTX = (*sql.Conn)(nil)
	_ gen.DBTX = (*sql.Tx)(nil)
)

func open(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(32)
	t.Cleanup(func() { db.Close() })
	// The test runs once per Go toolchain on the same database: start from empty tables.
	if _, err := db.Exec("TRUNCATE job, worker, team CASCADE"); err != nil {
		t.Fatal(err)
	}
	return db
}

func pendingCount(t *testing.T, db *sql.DB, name, actor string) int {
	t.Helper()
	var n int
	err := db.QueryRow("SELECT count(*) FROM job WHERE name = $1 AND actor = $2 AND status = 'Pending'", name, actor).Scan(&n)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestJobsDatabaseSQL(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	runner := gen.New(db)

	// Enqueue; a Pending twin is absorbed by unless conflict (nil, nil; still one row).
	first, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1", Payload: json.RawMessage(`{"to":"a@example.com"}`)})
	if err != nil || first == nil {
		t.Fatalf("first enqueue: %v, %v", first, err)
	}
	twin, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1"})
	if err != nil || twin != nil {
		t.Fatalf("twin should be absorbed: %v, %v", twin, err)
	}
	if n := pendingCount(t, db, "email", "u1"); n != 1 {
		t.Fatalf("pending rows = %d, want 1", n)
	}

	// The plain insert returns the typed unique-violation error, wrapping pgx's *pgconn.PgError.
	_, err = runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "email", Actor: "u1"})
	var dup *gen.UqJobNameActorError
	if !errors.As(err, &dup) || !errors.Is(err, gen.ErrExclusiveViolation) {
		t.Fatalf("want *UqJobNameActorError, got %T %v", err, err)
	}
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "23505" || dup.Constraint() != "uq_job_name_actor" {
		t.Fatalf("driver error not kept: %v", err)
	}

	// Claiming moves the row to Running and frees the key; an unknown id is nil, nil.
	claimed, err := runner.Query.ClaimJob(ctx, gen.ClaimJobParams{ID: first.ID})
	if err != nil || claimed == nil || claimed.ID != first.ID {
		t.Fatalf("claim: %v, %v", claimed, err)
	}
	var status gen.QueueStatus
	var claimedAt sql.NullTime
	if err := db.QueryRow("SELECT status, claimed_at FROM job WHERE id = $1", first.ID).Scan(&status, &claimedAt); err != nil {
		t.Fatal(err)
	}
	if status != gen.QueueStatusRunning || !claimedAt.Valid {
		t.Fatalf("after claim: status=%q claimed_at=%v", status, claimedAt)
	}
	if again, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "email", Actor: "u1"}); err != nil || again == nil || again.ID == first.ID {
		t.Fatalf("re-enqueue while running: %v, %v", again, err)
	}
	if none, err := runner.Query.ClaimJob(ctx, gen.ClaimJobParams{ID: "00000000-0000-0000-0000-000000000000"}); err != nil || none != nil {
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
	var kind sql.NullString
	if err := db.QueryRow("SELECT jsonb_typeof(payload) FROM job WHERE id = $1", arr.ID).Scan(&kind); err != nil || kind.String != "array" {
		t.Fatalf("array payload: %v %v", kind, err)
	}
	if err := db.QueryRow("SELECT jsonb_typeof(payload) FROM job WHERE id = $1", null.ID).Scan(&kind); err != nil || kind.Valid {
		t.Fatalf("nil payload should be NULL: %v %v", kind, err)
	}

	// WithTx(*sql.Tx): work in a rolled-back transaction leaves nothing behind; a committed one stays.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WithTx(tx).Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "tx", Actor: "u2"}); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := pendingCount(t, db, "tx", "u2"); n != 0 {
		t.Fatalf("rolled back rows = %d", n)
	}
	tx, err = db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WithTx(tx).Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "tx2", Actor: "u2"}); err != nil {
		t.Fatal(err)
	}
	if _, err := runner.WithTx(tx).Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "tx2", Actor: "u2"}); !errors.As(err, &dup) {
		t.Fatalf("duplicate inside a transaction: %v", err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if n := pendingCount(t, db, "tx2", "u2"); n != 0 {
		t.Fatalf("rolled back rows = %d", n)
	}

	// select and delete: sql.Null* optional values, NullQueueStatus, nil json.
	if _, err := db.Exec("TRUNCATE job CASCADE"); err != nil {
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
	pendingStatus := gen.NullQueueStatus{QueueStatus: gen.QueueStatusPending, Valid: true}
	if pending[0].Payload != nil || string(pending[1].Payload) != `{"n": 1}` || pending[1].Status != pendingStatus {
		t.Fatalf("list_pending_jobs rows: %+v", pending)
	}
	if one, err := runner.Query.ListPendingJobs(ctx, gen.ListPendingJobsParams{Actor: "w", Max: 1}); err != nil || len(one) != 1 {
		t.Fatalf("list_pending_jobs limit 1: %+v, %v", one, err)
	}
	job, err := runner.Query.GetJob(ctx, gen.GetJobParams{ID: b.ID})
	if err != nil || job == nil || job.ClaimedAt.Valid || job.Name != "b-job" || job.Status != pendingStatus {
		t.Fatalf("get_job: %+v, %v", job, err)
	}
	// At most one row: a missing id is nil, nil (sql.ErrNoRows is not an error here).
	if missing, err := runner.Query.GetJob(ctx, gen.GetJobParams{ID: "00000000-0000-0000-0000-000000000000"}); err != nil || missing != nil {
		t.Fatalf("get_job of a missing id: %+v, %v", missing, err)
	}
	if _, err := db.Exec("UPDATE job SET status = 'Processed', processed_at = now() - interval '2 days' WHERE id = $1", b.ID); err != nil {
		t.Fatal(err)
	}
	if job, err := runner.Query.GetJob(ctx, gen.GetJobParams{ID: b.ID}); err != nil || !job.ProcessedAt.Valid || job.Status.QueueStatus != gen.QueueStatusProcessed {
		t.Fatalf("get_job after processing: %+v, %v", job, err)
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

	// Bulk: 1,000 jobs in one statement from a []string parameter; a repeat is skipped.
	names := make([]string, 0, 1001)
	for i := 0; i < 1000; i++ {
		names = append(names, "bulk-"+strconv.Itoa(i))
	}
	bulk, err := runner.Query.EnqueueJobs(ctx, gen.EnqueueJobsParams{Names: append(names, "bulk-1"), Actor: "b"})
	if err != nil || len(bulk) != 1000 {
		t.Fatalf("enqueue_jobs: %d rows, %v", len(bulk), err)
	}

	// Concurrency: 32 concurrent enqueues of one key leave exactly one Pending row.
	var wg sync.WaitGroup
	rows := make(chan *gen.EnqueueJobRow, 32)
	errs := make(chan error, 64)
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			row, err := runner.Query.EnqueueJob(ctx, gen.EnqueueJobParams{Name: "race", Actor: "r"})
			if err != nil {
				errs <- err
			}
			rows <- row
		}()
	}
	wg.Wait()
	close(rows)
	won := 0
	for r := range rows {
		if r != nil {
			won++
		}
	}
	if len(errs) != 0 || won != 1 || pendingCount(t, db, "race", "r") != 1 {
		t.Fatalf("concurrent enqueue: %d inserted, %d errors", won, len(errs))
	}
	for i := 0; i < 32; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := runner.Query.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "race2", Actor: "r"})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	ok, dups := 0, 0
	for err := range errs {
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

func TestWorkersDatabaseSQL(t *testing.T) {
	ctx := context.Background()
	db := open(t)
	q := gen.New(db).Query
	const big = int64(1)<<53 + 1

	job, err := q.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "email", Actor: "u1", Payload: json.RawMessage(`{"n":1}`)})
	if err != nil {
		t.Fatal(err)
	}
	w1, err := q.RegisterWorker(ctx, gen.RegisterWorkerParams{
		Name:       "w1",
		Quota:      sql.NullInt64{Int64: big, Valid: true},
		Recent:     []int64{1, big, -5},
		Tags:       []string{"a", "b c", `q"uote`},
		Status:     gen.NullQueueStatus{QueueStatus: gen.QueueStatusRunning, Valid: true},
		Rating:     sql.NullFloat64{Float64: 4.5, Valid: true},
		Avatar:     []byte{0, 1, 255},
		CurrentID:  sql.NullString{String: job.ID, Valid: true},
		HistoryIDs: []string{job.ID},
	})
	if err != nil || w1 == nil {
		t.Fatalf("register_worker: %v, %v", w1, err)
	}
	if twin, err := q.RegisterWorker(ctx, gen.RegisterWorkerParams{Name: "w1", HistoryIDs: []string{}}); err != nil || twin != nil {
		t.Fatalf("a taken name must be absorbed: %v, %v", twin, err)
	}
	w2, err := q.RegisterWorker(ctx, gen.RegisterWorkerParams{Name: "w2", HistoryIDs: []string{}})
	if err != nil || w2 == nil {
		t.Fatalf("register_worker w2: %v, %v", w2, err)
	}

	// Typed errors beyond unique violations: a check (enum) and a foreign key (link).
	_, err = q.RegisterWorker(ctx, gen.RegisterWorkerParams{Name: "w3", HistoryIDs: []string{},
		Status: gen.NullQueueStatus{QueueStatus: "Bogus", Valid: true}})
	var enumErr *gen.CkWorkerStatusEnumError
	if !errors.As(err, &enumErr) || !errors.Is(err, gen.ErrCheckViolation) {
		t.Fatalf("want *CkWorkerStatusEnumError, got %T %v", err, err)
	}
	// An unknown id links nothing, as in Gel (the sub-select finds no Job; issue 25).
	const nowhere = "00000000-0000-0000-0000-000000000000"
	if w3, err := q.RegisterWorker(ctx, gen.RegisterWorkerParams{Name: "w3", HistoryIDs: []string{nowhere},
		CurrentID: sql.NullString{String: nowhere, Valid: true}}); err != nil || w3 == nil {
		t.Fatalf("register_worker w3: %v, %v", w3, err)
	}
	if got3, err := q.GetWorker(ctx, gen.GetWorkerParams{Name: "w3"}); err != nil || got3 == nil ||
		got3.Current != nil || len(got3.History) != 0 {
		t.Fatalf("get_worker w3: %+v, %v", got3, err)
	}
	// A foreign key refusing a delete: the job a worker holds (on target delete restrict).
	held, err := q.EnqueueJobStrict(ctx, gen.EnqueueJobStrictParams{Name: "sms", Actor: "u2", Payload: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if w4, err := q.RegisterWorker(ctx, gen.RegisterWorkerParams{Name: "w4", HistoryIDs: []string{},
		CurrentID: sql.NullString{String: held.ID, Valid: true}}); err != nil || w4 == nil {
		t.Fatalf("register_worker w4: %v, %v", w4, err)
	}
	_, err = q.DeleteJob(ctx, gen.DeleteJobParams{ID: held.ID})
	var fkErr *gen.FkWorkerCurrentIDError
	if !errors.As(err, &fkErr) || !errors.Is(err, gen.ErrForeignKeyViolation) {
		t.Fatalf("want *FkWorkerCurrentIDError, got %T %v", err, err)
	}

	got, err := q.GetWorker(ctx, gen.GetWorkerParams{Name: "w1"})
	if err != nil || got == nil {
		t.Fatalf("get_worker: %v, %v", got, err)
	}
	if got.ID != w1.ID || got.Processed != 0 || got.Quota != (sql.NullInt64{Int64: big, Valid: true}) ||
		!reflect.DeepEqual(got.Recent, []int64{1, big, -5}) || !reflect.DeepEqual(got.Tags, []string{"a", "b c", `q"uote`}) ||
		got.Status != (gen.NullQueueStatus{QueueStatus: gen.QueueStatusRunning, Valid: true}) ||
		got.Rating != (sql.NullFloat64{Float64: 4.5, Valid: true}) || !reflect.DeepEqual(got.Avatar, []byte{0, 1, 255}) {
		t.Fatalf("get_worker w1: %+v", got)
	}
	if got.Current == nil || got.Current.Name != "email" || string(got.Current.Payload) != `{"n": 1}` ||
		got.Current.Status == nil || *got.Current.Status != gen.QueueStatusPending {
		t.Fatalf("get_worker w1 current: %+v", got.Current)
	}
	if !reflect.DeepEqual(got.History, []gen.GetWorkerHistory{{Name: "email", Actor: "u1"}}) {
		t.Fatalf("get_worker w1 history: %+v", got.History)
	}
	bare, err := q.GetWorker(ctx, gen.GetWorkerParams{Name: "w2"})
	if err != nil || bare == nil || bare.Quota.Valid || bare.Recent != nil || bare.Tags != nil || bare.Status.Valid ||
		bare.Rating.Valid || bare.Avatar != nil || bare.Current != nil || len(bare.History) != 0 {
		t.Fatalf("get_worker w2 (NULLs): %+v, %v", bare, err)
	}
	if missing, err := q.GetWorker(ctx, gen.GetWorkerParams{Name: "nobody"}); err != nil || missing != nil {
		t.Fatalf("get_worker nobody: %+v, %v", missing, err)
	}

	// int64 results (exact above 2^53), a returned array; no match is nil, nil.
	bumped, err := q.BumpWorker(ctx, gen.BumpWorkerParams{Name: "w1", By: big + 1})
	if err != nil || bumped == nil || bumped.Processed != big+1 || !reflect.DeepEqual(bumped.Recent, []int64{1, big, -5}) {
		t.Fatalf("bump_worker: %+v, %v", bumped, err)
	}
	if none, err := q.BumpWorker(ctx, gen.BumpWorkerParams{Name: "nobody", By: 1}); err != nil || none != nil {
		t.Fatalf("bump_worker nobody: %+v, %v", none, err)
	}

	// Nested shapes (JSON): an optional single link and a multi link, int64 inside as strings.
	if _, err := q.CreateTeam(ctx, gen.CreateTeamParams{Name: "t1", LeadID: sql.NullString{String: w1.ID, Valid: true}, MemberIDs: []string{w1.ID, w2.ID}}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.CreateTeam(ctx, gen.CreateTeamParams{Name: "t2", MemberIDs: []string{}}); err != nil {
		t.Fatal(err)
	}
	_, err = q.CreateTeam(ctx, gen.CreateTeamParams{Name: "t1", MemberIDs: []string{}})
	var teamErr *gen.UqTeamNameError
	if !errors.As(err, &teamErr) {
		t.Fatalf("want *UqTeamNameError, got %T %v", err, err)
	}
	teams, err := q.ListTeams(ctx, gen.ListTeamsParams{Take: 10})
	if err != nil || len(teams) != 2 {
		t.Fatalf("list_teams: %+v, %v", teams, err)
	}
	quota := big
	members := []gen.ListTeamsMembers{{Name: "w1", Processed: big + 1, Quota: &quota}, {Name: "w2", Processed: 0}}
	if w2.ID < w1.ID { // a multi link's objects come ordered by id
		members[0], members[1] = members[1], members[0]
	}
	want := []gen.ListTeamsRow{
		{Name: "t1", Lead: &gen.ListTeamsLead{Name: "w1", Processed: big + 1, Quota: &quota}, Members: members},
		{Name: "t2", Members: []gen.ListTeamsMembers{}},
	}
	if !reflect.DeepEqual(teams, want) {
		t.Fatalf("list_teams:\n got %+v\nwant %+v", teams, want)
	}
	over, err := q.WorkersOverQuota(ctx, gen.WorkersOverQuotaParams{})
	if err != nil || len(over) != 1 || over[0].Name != "w1" || over[0].Quota.Int64 != big {
		t.Fatalf("workers_over_quota: %+v, %v", over, err)
	}
}
