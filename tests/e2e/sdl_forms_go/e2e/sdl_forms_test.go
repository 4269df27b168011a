// End-to-end test of the generated Go runner of tests/cases/sdl_forms (see
// test_sdl_forms_e2e.py): exclusive constraints on expressions, delegated to each subtype,
// through pgx v5 against the database in $DATABASE_URL. The test empties the tables first, so
// it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	sf "schemactest/sdlforms"
)

func ptr[T any](v T) *T { return &v }

func TestSdlForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "TRUNCATE settings, banner, handle, topic, question CASCADE"); err != nil {
		t.Fatal(err)
	}
	q := sf.New(db).Query

	// exclusive on (true), delegated: one object per concrete type, each type on its own.
	if _, err := q.AddSettings(ctx, sf.AddSettingsParams{Motd: "hello"}); err != nil {
		t.Fatal(err)
	}
	_, err = q.AddSettings(ctx, sf.AddSettingsParams{Motd: "again"})
	var settingsErr *sf.UqSettingsExprError
	if !errors.As(err, &settingsErr) {
		t.Fatalf("want *UqSettingsExprError, got %v", err)
	}
	if _, err := q.AddBanner(ctx, sf.AddBannerParams{}); err != nil {
		t.Fatal(err)
	}
	_, err = q.AddBanner(ctx, sf.AddBannerParams{Text: ptr("two")})
	var bannerErr *sf.UqBannerExprError
	if !errors.As(err, &bannerErr) || bannerErr.Constraint() != "uq_banner_expr" {
		t.Fatalf("want *UqBannerExprError, got %v", err)
	}

	// exclusive on ((.realm, str_lower(.name))): the same name in any case, per realm.
	if _, err := q.AddHandle(ctx, sf.AddHandleParams{Realm: "a", Name: "Bob"}); err != nil {
		t.Fatal(err)
	}
	_, err = q.AddHandle(ctx, sf.AddHandleParams{Realm: "a", Name: "BOB"})
	var nameErr *sf.UqHandleRealmNameExprError
	if !errors.As(err, &nameErr) {
		t.Fatalf("want *UqHandleRealmNameExprError, got %v", err)
	}
	if _, err := q.AddHandle(ctx, sf.AddHandleParams{Realm: "b", Name: "BOB"}); err != nil {
		t.Fatal(err)
	}
	ann, err := q.AddHandle(ctx, sf.AddHandleParams{Realm: "a", Name: "Ann"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.RenameHandle(ctx, sf.RenameHandleParams{ID: ann.ID, Name: "bob"})
	if !errors.As(err, &nameErr) {
		t.Fatalf("rename: want *UqHandleRealmNameExprError, got %v", err)
	}
	if row, err := q.RenameHandle(ctx, sf.RenameHandleParams{ID: ann.ID, Name: "Anne"}); err != nil || row == nil {
		t.Fatalf("rename: %+v, %v", row, err)
	}
	// a bare unless conflict absorbs a conflict on an expression too
	if row, err := q.TryHandle(ctx, sf.TryHandleParams{Realm: "a", Name: "bOb"}); err != nil || row != nil {
		t.Fatalf("try_handle (conflict): %+v, %v", row, err)
	}
	if row, err := q.TryHandle(ctx, sf.TryHandleParams{Realm: "c", Name: "bOb"}); err != nil || row == nil {
		t.Fatalf("try_handle: %+v, %v", row, err)
	}

	// exclusive on (.code_lc), a computed str_lower(.code): empty codes do not conflict.
	if _, err := q.AddHandle(ctx, sf.AddHandleParams{Realm: "d", Name: "x1", Code: ptr("Q7")}); err != nil {
		t.Fatal(err)
	}
	_, err = q.AddHandle(ctx, sf.AddHandleParams{Realm: "d", Name: "x2", Code: ptr("q7")})
	var codeErr *sf.UqHandleCodeExprError
	if !errors.As(err, &codeErr) {
		t.Fatalf("want *UqHandleCodeExprError, got %v", err)
	}
	for _, n := range []string{"x3", "x4"} {
		if _, err := q.AddHandle(ctx, sf.AddHandleParams{Realm: "d", Name: n}); err != nil {
			t.Fatal(err)
		}
	}
	got, err := q.Handles(ctx, sf.HandlesParams{Realm: "d"})
	if err != nil {
		t.Fatal(err)
	}
	want := []sf.HandlesRow{{Realm: "d", Name: "x1", CodeLc: ptr("q7")}, {Realm: "d", Name: "x3"}, {Realm: "d", Name: "x4"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("handles: %+v", got)
	}

	// Writes of a with-bound selection: its objects, and the write's own filter.
	moved, err := q.MoveHandles(ctx, sf.MoveHandlesParams{From: "a", Keep: "Bob", To: "e"})
	if err != nil || len(moved) != 1 || moved[0].ID != ann.ID {
		t.Fatalf("move_handles: %+v, %v", moved, err)
	}
	_, err = q.MoveHandles(ctx, sf.MoveHandlesParams{From: "a", Keep: "", To: "b"})
	if !errors.As(err, &nameErr) {
		t.Fatalf("move_handles: want *UqHandleRealmNameExprError, got %v", err)
	}
	dropped, err := q.DropRealm(ctx, sf.DropRealmParams{Realm: "e"})
	if err != nil || len(dropped) != 1 || dropped[0].ID != ann.ID {
		t.Fatalf("drop_realm: %+v, %v", dropped, err)
	}

	// A computed set of values through a multi link: a list (empty values are no elements).
	for _, tp := range []sf.AddTopicParams{{Name: "go", Note: ptr("fast")}, {Name: "sql"}, {Name: "rust", Note: ptr("safe")}} {
		if _, err := q.AddTopic(ctx, tp); err != nil {
			t.Fatal(err)
		}
	}
	ids := map[string]string{}
	for _, qp := range []sf.AddQuestionParams{{Title: "B", Topics: []string{"go", "sql"}}, {Title: "A", Topics: []string{"go", "rust"}}, {Title: "C", Topics: []string{}}} {
		row, err := q.AddQuestion(ctx, qp)
		if err != nil {
			t.Fatal(err)
		}
		ids[qp.Title] = row.ID
	}
	qs, err := q.Questions(ctx, sf.QuestionsParams{Topic: "go"})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range qs {
		sort.Strings(r.TopicNames)
		sort.Strings(r.TopicNotes)
	}
	wantQs := []sf.QuestionsRow{
		{Title: "A", TopicNames: []string{"go", "rust"}, TopicNotes: []string{"fast", "safe"}, N: 2},
		{Title: "B", TopicNames: []string{"go", "sql"}, TopicNotes: []string{"fast"}, N: 2}}
	if !reflect.DeepEqual(qs, wantQs) {
		t.Fatalf("questions: %+v", qs)
	}
	none, err := q.Untopical(ctx)
	if err != nil || !reflect.DeepEqual(none, []sf.UntopicalRow{{Title: "C", TopicNames: []string{}}}) {
		t.Fatalf("untopical: %+v, %v", none, err)
	}

	// A nested insert in an update of one object: once for it, none when it matches no object.
	if row, err := q.PinQuestion(ctx, sf.PinQuestionParams{ID: ids["B"], Name: "pinned"}); err != nil || row == nil || row.ID != ids["B"] {
		t.Fatalf("pin_question: %+v, %v", row, err)
	}
	if row, err := q.PinQuestion(ctx, sf.PinQuestionParams{ID: "00000000-0000-0000-0000-000000000000", Name: "orphan"}); err != nil || row != nil {
		t.Fatalf("pin_question (no object): %+v, %v", row, err)
	}
	var pinned, orphans int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM question q JOIN topic t ON t.id = q.pin_id WHERE q.title = 'B' AND t.name = 'pinned'").Scan(&pinned); err != nil || pinned != 1 {
		t.Fatalf("pinned: %d, %v", pinned, err)
	}
	if err := db.QueryRow(ctx, "SELECT count(*) FROM topic WHERE name = 'orphan'").Scan(&orphans); err != nil || orphans != 0 {
		t.Fatalf("orphans: %d, %v", orphans, err)
	}
}
