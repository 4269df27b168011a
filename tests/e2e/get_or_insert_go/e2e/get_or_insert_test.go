// End-to-end test of the generated Go runner of tests/cases/get_or_insert (see
// test_get_or_insert_e2e.py): a get-or-insert returns the existing user without running its
// update rewrites or firing its update triggers, and waits for (then returns) a user another
// transaction holds uncommitted, through pgx v5 against the database in $DATABASE_URL. The
// test empties the tables first.
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	g "schemactest/getorinsert"
)

func TestGetOrInsert(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	// The transaction holding a row, three runner calls waiting for it, and the check that they wait.
	cfg.MaxConns = 8
	db, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(ctx, `TRUNCATE post, log, "user" CASCADE`)
	must(err)
	r := g.New(db)
	users := func() []g.UsersRow {
		t.Helper()
		rows, err := r.Query.Users(ctx)
		must(err)
		return rows
	}
	msgs := func() []string {
		t.Helper()
		rows, err := r.Query.Logs(ctx)
		must(err)
		out := []string{}
		for _, l := range rows {
			out = append(out, l.Msg)
		}
		return out
	}

	// A get: the same object, unchanged, no update trigger fired; as a link's value too.
	ann, err := r.Query.GetUser(ctx, g.GetUserParams{Email: "ann@x.org"})
	must(err)
	before := users()
	if len(before) != 1 || before[0].TouchedAt == nil || before[0].Revision != 0 {
		t.Fatalf("after the insert: %+v", before)
	}
	again, err := r.Query.GetUser(ctx, g.GetUserParams{Email: "ann@x.org"})
	must(err)
	if again != ann {
		t.Fatalf("get: %v, want %v", again, ann)
	}
	_, err = r.Query.AddPost(ctx, g.AddPostParams{Title: "One", Email: "ann@x.org"})
	must(err)
	want := before[0]
	want.Posts = 1
	if got := users(); len(got) != 1 || !reflect.DeepEqual(got[0], want) {
		t.Fatalf("after the gets: %+v, want %+v", got, want)
	}
	added, err := r.Query.AddUser(ctx, g.AddUserParams{Email: "ann@x.org"})
	must(err)
	if added != nil {
		t.Fatalf("unless conflict returned %+v", added)
	}
	if got := msgs(); !reflect.DeepEqual(got, []string{"write ann@x.org"}) {
		t.Fatalf("logs: %v", got)
	}
	// A get, then an update of the same object in the same transaction: the update runs the
	// rewrites and fires the triggers.
	tx, err := db.Begin(ctx)
	must(err)
	inTx := r.WithTx(tx)
	again, err = inTx.Query.GetUser(ctx, g.GetUserParams{Email: "ann@x.org"})
	must(err)
	renamed, err := inTx.Query.RenameUser(ctx, g.RenameUserParams{Email: "ann@x.org", Name: "Ann"})
	must(err)
	must(tx.Commit(ctx))
	if again != ann || renamed == nil || renamed.ID != ann.ID {
		t.Fatalf("in a transaction: %v %v", again, renamed)
	}
	after := users()[0]
	if after.Name == nil || *after.Name != "Ann" || after.Revision != 1 || !after.TouchedAt.After(*before[0].TouchedAt) {
		t.Fatalf("after the update: %+v", after)
	}
	if got := msgs(); !reflect.DeepEqual(got, []string{"update ann@x.org", "write ann@x.org", "write ann@x.org"}) {
		t.Fatalf("logs: %v", got)
	}

	// Concurrency: a transaction holds the new user cy uncommitted; a get-or-insert, a post
	// whose author is a get-or-insert and a plain unless conflict, each on a connection of its
	// own, wait for it; it commits: they return (link) its object, and nil.
	holder, err := db.Begin(ctx)
	must(err)
	defer func() { _ = holder.Rollback(ctx) }()
	held, err := r.WithTx(holder).Query.GetUser(ctx, g.GetUserParams{Email: "cy@x.org"})
	must(err)
	type result struct {
		id  string
		nil bool
		err error
	}
	got, posted, plain := make(chan result, 1), make(chan result, 1), make(chan result, 1)
	go func() {
		row, err := r.Query.GetUser(ctx, g.GetUserParams{Email: "cy@x.org"})
		got <- result{id: row.ID, err: err}
	}()
	go func() {
		row, err := r.Query.AddPost(ctx, g.AddPostParams{Title: "Two", Email: "cy@x.org"})
		posted <- result{id: row.ID, err: err}
	}()
	go func() {
		row, err := r.Query.AddUser(ctx, g.AddUserParams{Email: "cy@x.org"})
		plain <- result{nil: row == nil, err: err}
	}()
	for i := 0; ; i++ {
		var n int
		must(db.QueryRow(ctx, `SELECT count(*)::int FROM pg_stat_activity
			WHERE wait_event_type = 'Lock' AND datname = current_database()`).Scan(&n))
		if n == 3 {
			break
		}
		if i > 500 {
			t.Fatal("the get-or-inserts did not wait")
		}
		time.Sleep(20 * time.Millisecond)
	}
	must(holder.Commit(ctx))
	if res := <-got; res.err != nil || res.id != held.ID {
		t.Fatalf("concurrent get-or-insert: %+v, want %s", res, held.ID)
	}
	if res := <-posted; res.err != nil {
		t.Fatalf("concurrent post: %+v", res)
	}
	if res := <-plain; res.err != nil || !res.nil {
		t.Fatalf("concurrent unless conflict: %+v", res)
	}
	var cy *g.UsersRow
	for _, u := range users() {
		if u.Email == "cy@x.org" {
			u := u
			cy = &u
		}
	}
	if cy == nil || cy.Revision != 0 || cy.Posts != 1 {
		t.Fatalf("cy: %+v", cy)
	}
	if got := msgs(); !reflect.DeepEqual(got, []string{"update ann@x.org", "write ann@x.org", "write ann@x.org", "write cy@x.org"}) {
		t.Fatalf("logs: %v", got)
	}
}
