// End-to-end test of string quoting in the generated Go runner (see test_string_quoting_e2e.py):
// enum members and SQL literals holding a character outside the BMP, quotes, backslashes, a tab
// and a carriage return must reach Postgres and come back unchanged through pgx.
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	sq "schemactest/sq"
)

const body = "x\ty\rz\U0001F600\"q\\"

func TestStringQuoting(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM note"); err != nil {
		t.Fatal(err)
	}
	want := []sq.Mood{"plain", "emoji\U0001F600", "a*/b", "quote\"s", "back\\slash"}
	if got := sq.AllMoodValues(); !reflect.DeepEqual(got, want) {
		t.Fatalf("members: got %q, want %q", got, want)
	}
	q := sq.New(db).Query
	if _, err := q.AddNote(ctx, sq.AddNoteParams{}); err != nil {
		t.Fatal(err)
	}
	var stored string
	if err := db.QueryRow(ctx, "SELECT body FROM note").Scan(&stored); err != nil || stored != body {
		t.Fatalf("stored %q (%v), want %q", stored, err, body)
	}
	rows, err := q.TrickyNotes(ctx, sq.TrickyNotesParams{})
	if err != nil || len(rows) != 1 || rows[0].Body != body {
		t.Fatalf("tricky notes: %#v (%v)", rows, err)
	}
	if _, err := q.AddEmojiNote(ctx, sq.AddEmojiNoteParams{}); err != nil {
		t.Fatal(err)
	}
}
