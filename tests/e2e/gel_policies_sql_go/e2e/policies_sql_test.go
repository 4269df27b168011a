// End-to-end test of the Go runner of tests/cases/policies compiled with
// go_driver="database/sql" (see test_gel_policies_e2e.py): globals (WithGlobals, WithTx keeps
// them) and access policies through *sql.DB and pgx's stdlib driver.
package e2e

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	ap "schemactest/policies"
)

func TestPoliciesDatabaseSQL(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `TRUNCATE "user", note CASCADE`); err != nil {
		t.Fatal(err)
	}
	var ann, bob string
	if err := db.QueryRowContext(ctx, `INSERT INTO "user" (name) VALUES ('Ann') RETURNING id`).Scan(&ann); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRowContext(ctx, `INSERT INTO "user" (name) VALUES ('Bob') RETURNING id`).Scan(&bob); err != nil {
		t.Fatal(err)
	}
	asAnn := ap.New(db).WithGlobals(ap.Globals{CurrentUserID: &ann})
	note, err := asAnn.Query.AddNote(ctx, ap.AddNoteParams{Body: "ann's"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = asAnn.Query.AddNoteFor(ctx, ap.AddNoteForParams{Body: "for bob", Owner: bob})
	var denied *ap.AccessPolicyError
	if !errors.As(err, &denied) || denied.Message != "only the owner can write this note" || !errors.Is(err, ap.ErrAccessPolicy) {
		t.Fatalf("insert for Bob: %v", err)
	}
	if notes, err := ap.New(db).Query.VisibleNotes(ctx, ap.VisibleNotesParams{}); err != nil || len(notes) != 0 {
		t.Fatalf("nobody sees %v %v", notes, err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	inTx := asAnn.WithTx(tx)
	if notes, err := inTx.Query.VisibleNotes(ctx, ap.VisibleNotesParams{}); err != nil || len(notes) != 1 || notes[0].Body != "ann's" {
		t.Fatalf("Ann sees %v %v", notes, err)
	}
	if row, err := inTx.Query.DeleteNote(ctx, ap.DeleteNoteParams{ID: note.ID}); err != nil || row == nil {
		t.Fatalf("delete: %v %v", row, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
