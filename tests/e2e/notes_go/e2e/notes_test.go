// End-to-end test of the committed Go runner of schemas/notes (generated/notes/go; see
// test_notes_library_e2e.py): a Gel 6 style library with globals, computeds, a backlink and
// access policies, through pgx v5 against the database in $DATABASE_URL. The test empties the
// tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"schemactest/notes"
)

func ptr[T any](v T) *T { return &v }

func TestNotes(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE "user", note CASCADE`); err != nil {
		t.Fatal(err)
	}
	app := notes.New(db)
	ann, err := app.Query.CreateUser(ctx, notes.CreateUserParams{Name: "Ann", Email: "ann@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	bob, err := app.Query.CreateUser(ctx, notes.CreateUserParams{Name: "Bob", Email: "bob@example.com"})
	if err != nil {
		t.Fatal(err)
	}
	asAnn := app.WithGlobals(notes.Globals{CurrentUserID: &ann.ID})
	asBob := app.WithGlobals(notes.Globals{CurrentUserID: &bob.ID})
	if me, err := asAnn.Query.Whoami(ctx, notes.WhoamiParams{}); err != nil || me == nil || me.Name != "Ann" || me.NoteCount != 0 {
		t.Fatalf("whoami: %+v %v", me, err)
	}

	todo, err := asAnn.Query.CreateNote(ctx, notes.CreateNoteParams{Title: "todo", Body: ptr("milk")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asAnn.Query.CreateNote(ctx, notes.CreateNoteParams{Title: "recipe", Shared: ptr(true)}); err != nil {
		t.Fatal(err)
	}
	if _, err := asBob.Query.CreateNote(ctx, notes.CreateNoteParams{Title: "bob's"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Query.CreateNote(ctx, notes.CreateNoteParams{Title: "nobody's"}); !errors.Is(err, notes.ErrNotNullViolation) {
		t.Fatalf("note without a user: %v", err)
	}
	seen := func(r *notes.Runner) []string {
		t.Helper()
		rows, err := r.Query.Notes(ctx, notes.NotesParams{})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, n := range rows {
			mine := "theirs"
			if n.IsMine {
				mine = "mine"
			}
			out = append(out, n.Title+":"+mine+":"+n.Owner.Name)
		}
		sort.Strings(out)
		return out
	}
	if got := seen(asBob); len(got) != 2 || got[0] != "bob's:mine:Bob" || got[1] != "recipe:theirs:Ann" {
		t.Fatalf("Bob sees %v", got)
	}
	if got := seen(app); len(got) != 1 || got[0] != "recipe:theirs:Ann" {
		t.Fatalf("nobody sees %v", got)
	}
	if row, err := asBob.Query.EditNote(ctx, notes.EditNoteParams{ID: todo.ID, Title: ptr("hacked")}); row != nil || err != nil {
		t.Fatalf("Bob edited Ann's note: %v %v", row, err)
	}
	if row, err := asAnn.Query.EditNote(ctx, notes.EditNoteParams{ID: todo.ID, Shared: ptr(true)}); row == nil || err != nil {
		t.Fatalf("Ann's edit: %v %v", row, err)
	}
	authors, err := asBob.Query.Authors(ctx, notes.AuthorsParams{})
	if err != nil || len(authors) != 2 || authors[0].NoteCount != 2 || len(authors[0].Notes) != 2 || authors[1].NoteCount != 1 {
		t.Fatalf("authors: %+v %v", authors, err)
	}
}
