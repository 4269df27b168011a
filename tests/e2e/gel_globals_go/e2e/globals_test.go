// End-to-end test of the generated Go runner of tests/cases/globals (see
// test_gel_globals_e2e.py): globals given with WithGlobals, bound as parameters of the queries
// that read them, defaults, a computed object global, and the typed *MissingGlobalError
// returned before anything is sent, through pgx v5 against the database in $DATABASE_URL. The
// test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gl "schemactest/globals"
)

func ptr[T any](v T) *T { return &v }

func TestGlobals(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE "user", note CASCADE`); err != nil {
		t.Fatal(err)
	}
	bare := gl.New(db)

	// A required global that is not set: a typed error before anything is sent.
	_, err = bare.Query.AddUser(ctx, gl.AddUserParams{Name: "Ann"})
	var missing *gl.MissingGlobalError
	if !errors.As(err, &missing) || missing.Global != "tenant" {
		t.Fatalf("AddUser without tenant: %v", err)
	}
	if notes, err := bare.Query.MyNotes(ctx, gl.MyNotesParams{}); notes != nil || !errors.As(err, &missing) {
		t.Fatalf("MyNotes without tenant: %v %v", notes, err)
	}
	if users, err := bare.Query.CountUsers(ctx, gl.CountUsersParams{}); err != nil || len(users) != 0 {
		t.Fatalf("CountUsers: %v %v", users, err)
	}

	acme := bare.WithGlobals(gl.Globals{Tenant: ptr("acme")})
	if bare.Globals().Tenant != nil || *acme.Globals().Tenant != "acme" {
		t.Fatal("WithGlobals changed the original runner")
	}
	ann, err := acme.Query.AddUser(ctx, gl.AddUserParams{Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := acme.Query.AddUser(ctx, gl.AddUserParams{Name: "Bob"})
	if err != nil {
		t.Fatal(err)
	}
	var tenant string
	if err := db.QueryRow(ctx, `SELECT tenant FROM "user" WHERE id = $1`, ann.ID).Scan(&tenant); err != nil || tenant != "acme" {
		t.Fatalf("tenant %q %v", tenant, err)
	}

	// An optional global that is not set is empty.
	if me, err := acme.Query.Whoami(ctx, gl.WhoamiParams{}); me != nil || err != nil {
		t.Fatalf("Whoami without a user: %v %v", me, err)
	}
	g := acme.Globals()
	g.CurrentUserID = &ann.ID
	asAnn := acme.WithGlobals(g)
	if me, err := asAnn.Query.Whoami(ctx, gl.WhoamiParams{}); err != nil || me == nil || me.Name != "Ann" {
		t.Fatalf("Whoami: %v %v", me, err)
	}

	// The computed global current_user as a link value and in a filter.
	for _, body := range []string{"c", "a", "b"} {
		if _, err := asAnn.Query.AddNote(ctx, gl.AddNoteParams{Body: body}); err != nil {
			t.Fatal(err)
		}
	}
	asBob := acme.WithGlobals(gl.Globals{Tenant: ptr("acme"), CurrentUserID: &bob.ID})
	bobs, err := asBob.Query.AddNote(ctx, gl.AddNoteParams{Body: "bob's"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := acme.Query.AddNote(ctx, gl.AddNoteParams{Body: "nobody's"}); !errors.Is(err, gl.ErrNotNullViolation) {
		t.Fatalf("AddNote without a user: %v", err)
	}
	// The owner link's default reads the global too.
	jotted, err := asBob.Query.Jot(ctx, gl.JotParams{Body: "jotted"})
	if err != nil {
		t.Fatal(err)
	}
	var owner string
	if err := db.QueryRow(ctx, `DELETE FROM note WHERE id = $1 RETURNING owner_id`, jotted.ID).Scan(&owner); err != nil || owner != bob.ID {
		t.Fatalf("jotted by %q: %v", owner, err)
	}
	bodies := func(r *gl.Runner) []string {
		t.Helper()
		notes, err := r.Query.MyNotes(ctx, gl.MyNotesParams{})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, n := range notes {
			out = append(out, n.Body+"/"+n.Owner.Name)
		}
		return out
	}
	if got := bodies(asAnn); !reflect.DeepEqual(got, []string{"a/Ann", "b/Ann", "c/Ann"}) {
		t.Fatalf("Ann's notes: %v", got)
	}
	if got := bodies(asBob); !reflect.DeepEqual(got, []string{"bob's/Bob"}) {
		t.Fatalf("Bob's notes: %v", got)
	}
	g.Tenant = ptr("other")
	if got := bodies(asAnn.WithGlobals(g)); len(got) != 0 {
		t.Fatalf("other tenant: %v", got)
	}

	// A default: page_size is 20 unless set.
	g = asAnn.Globals()
	g.PageSize = ptr(int64(2))
	if got := bodies(asAnn.WithGlobals(g)); !reflect.DeepEqual(got, []string{"a/Ann", "b/Ann"}) {
		t.Fatalf("page of 2: %v", got)
	}

	// Only the owner's notes change; a transaction keeps the runner's globals.
	if row, err := asAnn.Query.EditNote(ctx, gl.EditNoteParams{ID: bobs.ID, Body: "hacked"}); row != nil || err != nil {
		t.Fatalf("Ann edited Bob's note: %v %v", row, err)
	}
	tx, err := db.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	inTx := asBob.WithTx(tx)
	if row, err := inTx.Query.EditNote(ctx, gl.EditNoteParams{ID: bobs.ID, Body: "edited"}); err != nil || row == nil {
		t.Fatalf("Bob's edit: %v %v", row, err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	if got := bodies(asBob); !reflect.DeepEqual(got, []string{"edited/Bob"}) {
		t.Fatalf("after the edit: %v", got)
	}
}
