// End-to-end test of the generated Go runner of tests/cases/select_forms (see
// test_select_forms_e2e.py): selects of single values and of free objects, through pgx v5
// against the database in $DATABASE_URL. The test empties the table first, so it can run once
// per Go toolchain.
package e2e

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	sf "schemactest/selectforms"
)

func ptr[T any](v T) *T { return &v }

func TestSelectForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE "user"`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `INSERT INTO "user" (name, email, active) VALUES ('Ann', 'ann@example.com', true), ('Bob', NULL, false), ('Cy', 'cy@example.com', true)`); err != nil {
		t.Fatal(err)
	}
	q := sf.New(db).Query

	// A single value comes back as itself: int64, string, *string, bool.
	var one int64
	if one, err = q.Ping(ctx); err != nil || one != 1 {
		t.Fatalf("Ping = %v, %v", one, err)
	}
	if n, err := q.CountUsers(ctx); err != nil || n != 3 {
		t.Fatalf("CountUsers = %v, %v", n, err)
	}
	if n, err := q.CountActive(ctx); err != nil || n != 2 {
		t.Fatalf("CountActive = %v, %v", n, err)
	}
	if s, err := q.Echo(ctx, sf.EchoParams{Text: "hé"}); err != nil || s != "hé" {
		t.Fatalf("Echo = %q, %v", s, err)
	}
	var maybe *string
	if maybe, err = q.MaybeEcho(ctx, sf.MaybeEchoParams{Text: ptr("x")}); err != nil || maybe == nil || *maybe != "x" {
		t.Fatalf("MaybeEcho(x) = %v, %v", maybe, err)
	}
	if maybe, err = q.MaybeEcho(ctx, sf.MaybeEchoParams{}); err != nil || maybe != nil {
		t.Fatalf("MaybeEcho(nil) = %v, %v", maybe, err)
	}
	if maybe, err = q.Nothing(ctx); err != nil || maybe != nil {
		t.Fatalf("Nothing = %v, %v", maybe, err)
	}
	if b, err := q.EmailTaken(ctx, sf.EmailTakenParams{Email: "ann@example.com"}); err != nil || !b {
		t.Fatalf("EmailTaken(ann) = %v, %v", b, err)
	}
	if b, err := q.EmailTaken(ctx, sf.EmailTakenParams{Email: "nobody@example.com"}); err != nil || b {
		t.Fatalf("EmailTaken(nobody) = %v, %v", b, err)
	}

	// A free object is one row of its fields.
	before := time.Now()
	st, err := q.Stats(ctx, sf.StatsParams{Prefix: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 3 || st.Active != 2 || st.Label != "users!" || st.Half != 0.5 || st.Missing != nil {
		t.Fatalf("Stats = %+v", st)
	}
	if st.At.Before(before.Add(-5 * time.Second)) {
		t.Fatalf("Stats.At = %v", st.At)
	}
	nc, err := q.NameCheck(ctx, sf.NameCheckParams{Name: "Bob"})
	if err != nil || !nc.Taken || nc.Shout != "BOB" {
		t.Fatalf("NameCheck(Bob) = %+v, %v", nc, err)
	}
	nc, err = q.NameCheck(ctx, sf.NameCheckParams{Name: "Dee"})
	if err != nil || nc.Taken || nc.Shout != "DEE" {
		t.Fatalf("NameCheck(Dee) = %+v, %v", nc, err)
	}
}
