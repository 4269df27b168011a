// End-to-end test of the generated Go runner of tests/cases/policies (see
// test_gel_policies_e2e.py): access policies enforced on every query, through pgx v5 against
// the database in $DATABASE_URL. Reads skip what is not allowed; writes that are not allowed
// fail with *AccessPolicyError and write nothing. The test empties the tables first.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	ap "schemactest/policies"
)

func ptr[T any](v T) *T { return &v }

func TestPolicies(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE "user", note, comment, attachment CASCADE`); err != nil {
		t.Fatal(err)
	}
	var ann, bob string
	if err := db.QueryRow(ctx, `INSERT INTO "user" (name) VALUES ('Ann') RETURNING id`).Scan(&ann); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `INSERT INTO "user" (name) VALUES ('Bob') RETURNING id`).Scan(&bob); err != nil {
		t.Fatal(err)
	}
	nobody := ap.New(db)
	asAnn := nobody.WithGlobals(ap.Globals{CurrentUserID: &ann})
	asBob := nobody.WithGlobals(ap.Globals{CurrentUserID: &bob})

	secret, err := asAnn.Query.AddNote(ctx, ap.AddNoteParams{Body: "ann secret"})
	if err != nil {
		t.Fatal(err)
	}
	shared, err := asAnn.Query.AddNote(ctx, ap.AddNoteParams{Body: "ann public", Public: ptr(true)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := asBob.Query.AddNote(ctx, ap.AddNoteParams{Body: "bob secret"}); err != nil {
		t.Fatal(err)
	}
	_, err = asAnn.Query.AddNoteFor(ctx, ap.AddNoteForParams{Body: "for bob", Owner: bob})
	var denied *ap.AccessPolicyError
	if !errors.As(err, &denied) || denied.Message != "only the owner can write this note" ||
		denied.Type != "default::Note" || denied.Action != "insert" || !errors.Is(err, ap.ErrAccessPolicy) {
		t.Fatalf("insert for Bob: %v", err)
	}
	if _, err := asAnn.Query.AddNote(ctx, ap.AddNoteParams{Body: ""}); !errors.As(err, &denied) ||
		denied.Message != "a note needs a body" {
		t.Fatalf("empty note: %v", err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM note`).Scan(&n); err != nil || n != 3 {
		t.Fatalf("notes: %d %v", n, err)
	}

	bodies := func(r *ap.Runner) []string {
		t.Helper()
		notes, err := r.Query.VisibleNotes(ctx, ap.VisibleNotesParams{})
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, n := range notes {
			out = append(out, n.Body)
		}
		return out
	}
	if got := bodies(asAnn); !reflect.DeepEqual(got, []string{"ann public", "ann secret"}) {
		t.Fatalf("Ann sees %v", got)
	}
	if got := bodies(nobody); !reflect.DeepEqual(got, []string{"ann public"}) {
		t.Fatalf("nobody sees %v", got)
	}
	users, err := asBob.Query.Users(ctx, ap.UsersParams{})
	if err != nil || len(users) != 2 || users[0].NoteCount != 1 || len(users[0].Notes) != 1 ||
		users[0].Notes[0].Body != "ann public" || users[1].Notes[0].Body != "bob secret" {
		t.Fatalf("users as Bob: %+v %v", users, err)
	}

	if row, err := asBob.Query.EditNote(ctx, ap.EditNoteParams{ID: shared.ID, Body: "defaced"}); row != nil || err != nil {
		t.Fatalf("Bob edited Ann's note: %v %v", row, err)
	}
	if _, err := asAnn.Query.GiveNote(ctx, ap.GiveNoteParams{ID: secret.ID, Owner: bob}); !errors.As(err, &denied) ||
		denied.Action != "update" || denied.ObjectID != secret.ID {
		t.Fatalf("give away: %v", err)
	}
	var owner string
	if err := db.QueryRow(ctx, `SELECT owner_id FROM note WHERE id = $1`, secret.ID).Scan(&owner); err != nil || owner != ann {
		t.Fatalf("owner after a refused update: %v %v", owner, err)
	}

	// A for loop's update: Bob's note is skipped (not Ann's to update); one refused value fails
	// the whole statement and changes nothing.
	var bobNote string
	if err := db.QueryRow(ctx, `SELECT id FROM note WHERE body = 'bob secret'`).Scan(&bobNote); err != nil {
		t.Fatal(err)
	}
	item := func(id, body string) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"id": id, "body": body})
		return b
	}
	edited, err := asAnn.Query.EditNotes(ctx, ap.EditNotesParams{Items: []json.RawMessage{item(secret.ID, "ann bulk"), item(bobNote, "defaced")}})
	if err != nil || len(edited) != 1 || edited[0].ID != secret.ID {
		t.Fatalf("edit_notes: %+v %v", edited, err)
	}
	if _, err := asAnn.Query.EditNotes(ctx, ap.EditNotesParams{Items: []json.RawMessage{item(secret.ID, "x"), item(shared.ID, "")}}); !errors.As(err, &denied) ||
		denied.Action != "update" || denied.Message != "a note needs a body" {
		t.Fatalf("edit_notes with an empty body: %v", err)
	}
	var written []string
	rs, err := db.Query(ctx, `SELECT body FROM note ORDER BY body`)
	if err != nil {
		t.Fatal(err)
	}
	for rs.Next() {
		var b string
		if err := rs.Scan(&b); err != nil {
			t.Fatal(err)
		}
		written = append(written, b)
	}
	if !reflect.DeepEqual(written, []string{"ann bulk", "ann public", "bob secret"}) {
		t.Fatalf("bodies after edit_notes: %v", written)
	}

	if _, err := asAnn.Query.ArchiveNote(ctx, ap.ArchiveNoteParams{ID: shared.ID}); err != nil {
		t.Fatal(err)
	}
	if gone, err := asAnn.Query.DeleteNote(ctx, ap.DeleteNoteParams{ID: shared.ID}); err != nil || gone != nil {
		t.Fatalf("deleted an archived note: %v %v", gone, err)
	}
	if gone, err := asBob.Query.DeleteNote(ctx, ap.DeleteNoteParams{ID: secret.ID}); err != nil || gone != nil {
		t.Fatalf("Bob deleted Ann's note: %v %v", gone, err)
	}
	if gone, err := asAnn.Query.DeleteNote(ctx, ap.DeleteNoteParams{ID: secret.ID}); err != nil || gone == nil || gone.ID != secret.ID {
		t.Fatalf("delete: %v %v", gone, err)
	}

	// A path ending in a link compares its object (.note.owner ?= global current_user); a path
	// after assert_single(.comment) reads the one comment's note's owner.
	if _, err := asAnn.Query.AddComment(ctx, ap.AddCommentParams{Note: shared.ID, Text: "nice"}); err != nil {
		t.Fatal(err)
	}
	if _, err := asBob.Query.AddComment(ctx, ap.AddCommentParams{Note: shared.ID, Text: "bob was here"}); !errors.As(err, &denied) ||
		denied.Type != "default::Comment" || denied.Action != "insert" {
		t.Fatalf("Bob commented on Ann's note: %v", err)
	}
	texts := func(r *ap.Runner) []string {
		t.Helper()
		comments, err := r.Query.Comments(ctx)
		if err != nil {
			t.Fatal(err)
		}
		out := []string{}
		for _, c := range comments {
			out = append(out, c.Text)
		}
		return out
	}
	if got := texts(asAnn); !reflect.DeepEqual(got, []string{"nice"}) {
		t.Fatalf("Ann's comments: %v", got)
	}
	if got := texts(asBob); !reflect.DeepEqual(got, []string{}) {
		t.Fatalf("Bob's comments: %v", got)
	}
	if _, err := db.Exec(ctx, `INSERT INTO attachment (name) VALUES ('a0'), ('a1')`); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, `UPDATE comment SET attachment_id = (SELECT id FROM attachment WHERE name = 'a1')`); err != nil {
		t.Fatal(err)
	}
	names := func(r *ap.Runner) ([]string, error) {
		attachments, err := r.Query.Attachments(ctx)
		out := []string{}
		for _, a := range attachments {
			out = append(out, a.Name)
		}
		return out, err
	}
	for _, c := range []struct {
		r    *ap.Runner
		want []string
	}{{asAnn, []string{"a1"}}, {asBob, []string{}}, {nobody, []string{"a0"}}} { // no comment: {} ?= {}
		if got, err := names(c.r); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Fatalf("attachments: %v %v, want %v", got, err, c.want)
		}
	}
	// Two comments: assert_single fails the query (a cardinality violation).
	if _, err := db.Exec(ctx, `INSERT INTO comment (note_id, text, attachment_id)
		SELECT note_id, 'again', attachment_id FROM comment`); err != nil {
		t.Fatal(err)
	}
	var pgErr *pgconn.PgError
	if _, err := names(asAnn); !errors.As(err, &pgErr) || pgErr.Code != "21000" {
		t.Fatalf("two comments: %v", err)
	}
}
