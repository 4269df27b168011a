// End-to-end test of the generated Go runner of tests/cases/query_dml (see
// test_query_dml_e2e.py): links set by any filter, multi link changes by any filter, {}
// assignments and upserts whose else update filters, through pgx v5 against the database in
// $DATABASE_URL. The test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	qd "schemactest/querydml"
)

func labels(t *testing.T, db *pgxpool.Pool, story string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(),
		"SELECT l.name FROM story_labels sl JOIN label l ON l.id = sl.target_id WHERE sl.source_id = $1 ORDER BY l.name", story)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	names := []string{}
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

func ptr[T any](v T) *T { return &v }

func TestQueryDml(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	editorOf := func(story string) *string {
		t.Helper()
		var e *string
		if err := db.QueryRow(ctx, "SELECT editor_id::text FROM story WHERE id = $1", story).Scan(&e); err != nil {
			t.Fatal(err)
		}
		return e
	}
	exec("TRUNCATE member, label CASCADE")
	var ann string
	if err := db.QueryRow(ctx, "INSERT INTO member (name, telegram_id, nick) VALUES ('ann', 1001, 'a') RETURNING id").Scan(&ann); err != nil {
		t.Fatal(err)
	}
	exec("INSERT INTO member (name, telegram_id, nick) VALUES ('bob', 1002, 'b'), ('bea', 1003, 'b')")
	exec("INSERT INTO label (name, kind) VALUES ('go', 'lang'), ('sql', 'lang'), ('news', 'topic')")
	q := qd.New(db).Query

	// A single link by an exclusive property, a multi link by any filter.
	story, err := q.CreateStory(ctx, qd.CreateStoryParams{Title: "Hello", TelegramID: 1001, LabelKind: "lang"})
	if err != nil {
		t.Fatal(err)
	}
	var author string
	if err := db.QueryRow(ctx, "SELECT author_id::text FROM story WHERE id = $1", story.ID).Scan(&author); err != nil || author != ann {
		t.Fatalf("author: %q, %v", author, err)
	}
	if got := labels(t, db, story.ID); !reflect.DeepEqual(got, []string{"go", "sql"}) {
		t.Fatalf("labels: %v", got)
	}
	if _, err := q.CreateStory(ctx, qd.CreateStoryParams{Title: "Orphan", TelegramID: 9, LabelKind: "lang"}); !errors.Is(err, qd.ErrNotNullViolation) {
		t.Fatalf("want a not-null violation, got %v", err)
	}

	// An optional value for a required property or link compiles (as in Gel); empty, it fails
	// the statement when it runs and nothing is written.
	draftTitle := "Draft"
	drafted, err := q.DraftStory(ctx, qd.DraftStoryParams{Title: &draftTitle, AuthorID: &ann})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := q.DraftStory(ctx, qd.DraftStoryParams{AuthorID: &ann}); !errors.Is(err, qd.ErrNotNullViolation) {
		t.Fatalf("draft without a title: want a not-null violation, got %v", err)
	}
	noAuthor := "No author"
	if _, err := q.DraftStory(ctx, qd.DraftStoryParams{Title: &noAuthor}); !errors.Is(err, qd.ErrNotNullViolation) {
		t.Fatalf("draft without an author: want a not-null violation, got %v", err)
	}
	var drafts int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM story WHERE title IN ('Draft', 'No author') OR title IS NULL").Scan(&drafts); err != nil || drafts != 1 {
		t.Fatalf("drafts: %d, %v", drafts, err)
	}
	anne := "anne"
	if row, err := q.RenameMember(ctx, qd.RenameMemberParams{TelegramID: 1001, Name: &anne}); err != nil || row == nil || row.ID != ann {
		t.Fatalf("rename_member: %v, %v", row, err)
	}
	if _, err := q.RenameMember(ctx, qd.RenameMemberParams{TelegramID: 1001}); !errors.Is(err, qd.ErrNotNullViolation) {
		t.Fatalf("rename to nothing: want a not-null violation, got %v", err)
	}
	var annName string
	if err := db.QueryRow(ctx, "SELECT name FROM member WHERE id = $1", ann).Scan(&annName); err != nil || annName != "anne" {
		t.Fatalf("name: %q, %v", annName, err)
	}
	if _, err := db.Exec(ctx, "UPDATE member SET name = 'ann' WHERE id = $1", ann); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "DELETE FROM story WHERE id = $1", drafted.ID); err != nil {
		t.Fatal(err)
	}

	// assert_single: one object links, several fail the statement, none empties the link.
	if row, err := q.SetEditor(ctx, qd.SetEditorParams{ID: story.ID, Nick: "a"}); err != nil || row == nil {
		t.Fatalf("set_editor: %v, %v", row, err)
	}
	if e := editorOf(story.ID); e == nil || *e != ann {
		t.Fatalf("editor: %v", e)
	}
	_, err = q.SetEditor(ctx, qd.SetEditorParams{ID: story.ID, Nick: "b"})
	var pgErr *pgconn.PgError
	var cardErr *qd.CardinalityViolationError
	if !errors.As(err, &pgErr) || pgErr.Code != "21000" || !errors.As(err, &cardErr) || cardErr.Function != "assert_single" {
		t.Fatalf("want a cardinality violation, got %v", err)
	}
	if _, err := q.SetEditor(ctx, qd.SetEditorParams{ID: story.ID, Nick: "nobody"}); err != nil {
		t.Fatal(err)
	}
	if e := editorOf(story.ID); e != nil {
		t.Fatalf("editor after no match: %v", *e)
	}
	exec("UPDATE story SET editor_id = $1", ann)
	if row, err := q.ClearEditor(ctx, qd.ClearEditorParams{ID: story.ID}); err != nil || row == nil || row.ID != story.ID {
		t.Fatalf("clear_editor: %v, %v", row, err)
	}
	if e := editorOf(story.ID); e != nil {
		t.Fatalf("editor after {}: %v", *e)
	}

	// Multi link changes by a filter.
	exec("UPDATE story_labels SET weight = 5")
	if _, err := q.LabelStory(ctx, qd.LabelStoryParams{ID: story.ID, Kind: "topic"}); err != nil {
		t.Fatal(err)
	}
	if got := labels(t, db, story.ID); !reflect.DeepEqual(got, []string{"go", "news", "sql"}) {
		t.Fatalf("labels after +=: %v", got)
	}
	if _, err := q.UnlabelStory(ctx, qd.UnlabelStoryParams{ID: story.ID, Kind: "lang"}); err != nil {
		t.Fatal(err)
	}
	if got := labels(t, db, story.ID); !reflect.DeepEqual(got, []string{"news"}) {
		t.Fatalf("labels after -=: %v", got)
	}
	if _, err := q.ClearLabels(ctx, qd.ClearLabelsParams{ID: story.ID}); err != nil {
		t.Fatal(err)
	}
	if got := labels(t, db, story.ID); len(got) != 0 {
		t.Fatalf("labels after := {}: %v", got)
	}

	// An upsert whose else update filters.
	zed, err := q.UpsertMember(ctx, qd.UpsertMemberParams{Name: "zed", TelegramID: 7, Nick: ptr("z")})
	if err != nil || zed == nil || zed.Name != "zed" || zed.TelegramID != 7 || zed.Nick == nil || *zed.Nick != "z" {
		t.Fatalf("upsert insert: %+v, %v", zed, err)
	}
	again, err := q.UpsertMember(ctx, qd.UpsertMemberParams{Name: "zed", TelegramID: 7, Nick: ptr("zz")})
	if err != nil || again == nil || again.ID != zed.ID || again.Nick == nil || *again.Nick != "zz" {
		t.Fatalf("upsert update: %+v, %v", again, err)
	}
	if none, err := q.UpsertMember(ctx, qd.UpsertMemberParams{Name: "other", TelegramID: 7, Nick: ptr("o")}); err != nil || none != nil {
		t.Fatalf("upsert filtered out: %+v, %v", none, err)
	}
	_, err = q.UpsertMember(ctx, qd.UpsertMemberParams{Name: "zed", TelegramID: 8})
	var nameErr *qd.UqMemberNameError
	if !errors.As(err, &nameErr) {
		t.Fatalf("want *UqMemberNameError, got %v", err)
	}

	// A with-bound value in a link's sub-select, the update's nested shape.
	handed, err := q.HandOver(ctx, qd.HandOverParams{Editor: "bob", ID: story.ID})
	if err != nil || handed == nil || handed.Title != "Hello" || handed.Editor == nil || handed.Editor.Name != "bob" {
		t.Fatalf("hand_over: %+v, %v", handed, err)
	}
	handed, err = q.HandOver(ctx, qd.HandOverParams{Editor: "nobody", ID: story.ID})
	if err != nil || handed == nil || handed.Editor != nil {
		t.Fatalf("hand_over nobody: %+v, %v", handed, err)
	}

	// for loops over updates, deletes, selects and upserts.
	second, err := q.CreateStory(ctx, qd.CreateStoryParams{Title: "Second", TelegramID: 1002, LabelKind: "none"})
	if err != nil {
		t.Fatal(err)
	}
	touched, err := q.TouchStories(ctx, qd.TouchStoriesParams{IDs: []string{story.ID, second.ID, second.ID}})
	if err != nil || len(touched) != 2 {
		t.Fatalf("touch_stories: %+v, %v", touched, err)
	}
	var views int32
	if err := db.QueryRow(ctx, "SELECT views FROM story WHERE id = $1", second.ID).Scan(&views); err != nil || views != 1 {
		t.Fatalf("views: %d, %v", views, err)
	}
	renamed, err := q.RenameStories(ctx, qd.RenameStoriesParams{Items: []byte(`[{"id": "` + story.ID + `", "title": "Hello again"}]`)})
	if err != nil || len(renamed) != 1 || renamed[0].ID != story.ID {
		t.Fatalf("rename_stories: %+v, %v", renamed, err)
	}
	byAuthors, err := q.StoriesByAuthors(ctx, qd.StoriesByAuthorsParams{TelegramIDs: []int64{1001, 1002, 5}})
	if err != nil || len(byAuthors) != 2 {
		t.Fatalf("stories_by_authors: %+v, %v", byAuthors, err)
	}
	for _, r := range byAuthors {
		if !(r.Title == "Hello again" && r.Author.Name == "ann") && !(r.Title == "Second" && r.Author.Name == "bob") {
			t.Fatalf("stories_by_authors row: %+v", r)
		}
	}
	merged, err := q.MergeMembers(ctx, qd.MergeMembersParams{Members: []byte(`[{"name": "zedd", "telegram_id": 7}, {"name": "new", "telegram_id": 70}]`)})
	if err != nil || len(merged) != 2 {
		t.Fatalf("merge_members: %+v, %v", merged, err)
	}
	var name, nick string
	if err := db.QueryRow(ctx, "SELECT name, nick FROM member WHERE telegram_id = 7").Scan(&name, &nick); err != nil || name != "zedd" || nick != "merged" {
		t.Fatalf("merged member: %q %q %v", name, nick, err)
	}
	// Gel's json[name] fails on a missing member and <int64> of a JSON string fails
	// (https://docs.geldata.com/reference/stdlib/json): the statement writes nothing.
	var membersBefore, membersAfter int
	if err := db.QueryRow(ctx, "SELECT count(*)::int FROM member").Scan(&membersBefore); err != nil {
		t.Fatal(err)
	}
	for doc, text := range map[string]string{
		`[{"name": "x1", "telegram_id": 71}, {"name": "x2"}]`: "JSON index 'telegram_id' is out of bounds",
		`[{"name": "x3", "telegram_id": "72"}]`:               "expected json number or null; got JSON string",
	} {
		_, err := q.MergeMembers(ctx, qd.MergeMembersParams{Members: []byte(doc)})
		var jsonErr *pgconn.PgError
		if !errors.As(err, &jsonErr) || jsonErr.Code != "22P02" || !strings.Contains(jsonErr.Message, text) {
			t.Fatalf("merge_members %s: %v, want %q", doc, err, text)
		}
	}
	if err := db.QueryRow(ctx, "SELECT count(*)::int FROM member").Scan(&membersAfter); err != nil || membersAfter != membersBefore {
		t.Fatalf("members after failed merges: %d, want %d (%v)", membersAfter, membersBefore, err)
	}
	// for over json_object_unpack: k.0 the key, k.1 the json value (to_str: its JSON text).
	kinds, err := q.MergeLabelKinds(ctx, qd.MergeLabelKindsParams{Kinds: []byte(`{"zz_new": "fresh", "zz_num": 3}`)})
	if err != nil || len(kinds) != 2 {
		t.Fatalf("merge_label_kinds: %+v, %v", kinds, err)
	}
	rekinded, err := q.MergeLabelKinds(ctx, qd.MergeLabelKindsParams{Kinds: []byte(`{"zz_new": ["re", "kind"]}`)})
	if err != nil || len(rekinded) != 1 || (rekinded[0].ID != kinds[0].ID && rekinded[0].ID != kinds[1].ID) {
		t.Fatalf("merge_label_kinds again: %+v, %v", rekinded, err)
	}
	var kind string
	if err := db.QueryRow(ctx, "SELECT kind FROM label WHERE name = 'zz_new'").Scan(&kind); err != nil || kind != `["re", "kind"]` {
		t.Fatalf("merged kind: %q %v", kind, err)
	}
	added, err := q.AddStories(ctx, qd.AddStoriesParams{Author: 70, Titles: []string{"N1", "N2"}})
	if err != nil || len(added) != 2 {
		t.Fatalf("add_stories: %+v, %v", added, err)
	}
	var bea string
	if err := db.QueryRow(ctx, "SELECT id::text FROM member WHERE name = 'bea'").Scan(&bea); err != nil {
		t.Fatal(err)
	}
	dropped, err := q.DropMembers(ctx, qd.DropMembersParams{Names: []string{"bea", "nobody", "bea"}})
	if err != nil || len(dropped) != 1 || dropped[0].ID != bea {
		t.Fatalf("drop_members: %+v, %v", dropped, err)
	}

	// A path through a multi link in a filter: at least one linked object matches.
	if _, err := q.LabelStory(ctx, qd.LabelStoryParams{ID: second.ID, Kind: "lang"}); err != nil {
		t.Fatal(err)
	}
	labelled, err := q.StoriesLabelled(ctx, qd.StoriesLabelledParams{Label: "go"})
	if err != nil || !reflect.DeepEqual(labelled, []qd.StoriesLabelledRow{{Title: "Second"}}) {
		t.Fatalf("stories_labelled: %+v, %v", labelled, err)
	}
	if none, err := q.StoriesLabelled(ctx, qd.StoriesLabelledParams{Label: "news"}); err != nil || len(none) != 0 {
		t.Fatalf("stories_labelled news: %+v, %v", none, err)
	}

	// Objects the same statement inserts, assigned to links.
	nested, err := q.StoryWithNewAuthor(ctx, qd.StoryWithNewAuthorParams{Title: "Nested", Name: "neo", TelegramID: 42, Label: "fresh"})
	if err != nil {
		t.Fatal(err)
	}
	if got := labels(t, db, nested.ID); !reflect.DeepEqual(got, []string{"fresh"}) {
		t.Fatalf("nested labels: %v", got)
	}
	_, err = q.StoryWithNewAuthor(ctx, qd.StoryWithNewAuthorParams{Title: "Dup", Name: "neo", TelegramID: 43, Label: "other"})
	var dupErr *qd.UqMemberNameError
	if !errors.As(err, &dupErr) {
		t.Fatalf("want *UqMemberNameError, got %v", err)
	}
	bound, err := q.MemberAndStory(ctx, qd.MemberAndStoryParams{Name: "tri", TelegramID: 44, Title: "Bound"})
	if err != nil || bound.Title != "Bound" {
		t.Fatalf("member_and_story: %+v, %v", bound, err)
	}
	var boundName string
	if err := db.QueryRow(ctx, "SELECT name FROM member WHERE id = $1", bound.AuthorID).Scan(&boundName); err != nil || boundName != "tri" {
		t.Fatalf("bound author: %q, %v", boundName, err)
	}
	if row, err := q.ReassignToNew(ctx, qd.ReassignToNewParams{Name: "quad", TelegramID: 45, ID: nested.ID}); err != nil || row == nil || row.ID != nested.ID {
		t.Fatalf("reassign_to_new: %+v, %v", row, err)
	}

	// Get-or-insert links: the member found, else a new one read back by the same statement;
	// paths from a with name bound to one object.
	found, err := q.StoryByAuthorName(ctx, qd.StoryByAuthorNameParams{Author: "tri", Title: "Got", TelegramID: 501})
	if err != nil || found != (qd.StoryByAuthorNameRow{Title: "Got", AuthorName: "tri", AuthorTg: 44}) {
		t.Fatalf("story_by_author_name found: %+v, %v", found, err)
	}
	made, err := q.StoryByAuthorName(ctx, qd.StoryByAuthorNameParams{Author: "getter", Title: "Made", TelegramID: 502})
	if err != nil || made != (qd.StoryByAuthorNameRow{Title: "Made", AuthorName: "getter", AuthorTg: 502}) {
		t.Fatalf("story_by_author_name made: %+v, %v", made, err)
	}
	var gotID string
	if err := db.QueryRow(ctx, "SELECT id::text FROM story WHERE title = 'Got'").Scan(&gotID); err != nil {
		t.Fatal(err)
	}
	kept, err := q.RetitleStory(ctx, qd.RetitleStoryParams{ID: gotID, TelegramID: 503})
	if err != nil || kept == nil || kept.Title != "Got" || kept.EditorName == nil || *kept.EditorName != "tri" || kept.AuthorName != "tri" {
		t.Fatalf("retitle_story kept: %+v, %v", kept, err)
	}
	edited, err := q.RetitleStory(ctx, qd.RetitleStoryParams{ID: gotID, Editor: ptr("edi"), Title: ptr("Got2"), TelegramID: 504})
	if err != nil || edited == nil || edited.Title != "Got2" || edited.EditorName == nil || *edited.EditorName != "edi" || edited.AuthorName != "tri" {
		t.Fatalf("retitle_story edited: %+v, %v", edited, err)
	}
	if none, err := q.RetitleStory(ctx, qd.RetitleStoryParams{ID: "00000000-0000-0000-0000-000000000000", Editor: ptr("nobody"), TelegramID: 505}); err != nil || none != nil {
		t.Fatalf("retitle_story none: %+v, %v", none, err)
	}
	var made3 int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM member WHERE telegram_id IN (501, 502, 503, 504, 505)").Scan(&made3); err != nil || made3 != 2 {
		t.Fatalf("members made: %d, %v", made3, err)
	}

	// A bulk insert bound in with, its objects selected in the shape of another bound insert.
	bulk, err := q.MemberWithStories(ctx, qd.MemberWithStoriesParams{
		Params: []byte(`{"name": "bulk", "telegram_id": 601, "stories": [{"title": "S1"}, {"title": "S2"}]}`)})
	if err != nil || bulk.Name != "bulk" || len(bulk.Stories) != 2 || len(bulk.StoryIDs) != 2 {
		t.Fatalf("member_with_stories: %+v, %v", bulk, err)
	}
	for _, s := range bulk.Stories {
		if s.AuthorName != "bulk" || (s.Title != "S1" && s.Title != "S2") {
			t.Fatalf("member_with_stories story: %+v", s)
		}
	}

	united, err := q.MemberAndStories(ctx, qd.MemberAndStoriesParams{Name: "union", TelegramID: 602,
		Stories: []byte(`[{"title": "U1"}, {"title": "U2"}]`)})
	if err != nil || len(united) != 3 {
		t.Fatalf("member_and_stories: %+v, %v", united, err)
	}
	var written int
	for _, r := range united {
		var n int
		if err := db.QueryRow(ctx, "SELECT (SELECT count(*) FROM member WHERE id = $1 AND name = 'union') + "+
			"(SELECT count(*) FROM story s JOIN member m ON m.id = s.author_id WHERE s.id = $1 AND m.name = 'union')",
			r.ID).Scan(&n); err != nil {
			t.Fatal(err)
		}
		written += n
	}
	if written != 3 {
		t.Fatalf("member_and_stories wrote %d of the objects it returned", written)
	}

	// Link properties set by the links' sub-select.
	weighted, err := q.StoryWithWeights(ctx, qd.StoryWithWeightsParams{Title: "Weighted", TelegramID: 1001, Label: "go"})
	if err != nil {
		t.Fatal(err)
	}
	if row, err := q.WeighLabels(ctx, qd.WeighLabelsParams{ID: weighted.ID, Weight: 9, Kind: "lang"}); err != nil || row == nil {
		t.Fatalf("weigh_labels: %+v, %v", row, err)
	}
	var nine int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM story_labels WHERE source_id = $1 AND weight = 9", weighted.ID).Scan(&nine); err != nil || nine != 2 {
		t.Fatalf("weights: %d, %v", nine, err)
	}

	// Writes in a free object's fields: each runs once; count() of a delete is the number of
	// objects it deleted; an insert that fails fails the statement, which then deletes nothing.
	var tidyAuthor string
	if err := db.QueryRow(ctx, "INSERT INTO member (name, telegram_id) VALUES ('tidy', 701) RETURNING id").Scan(&tidyAuthor); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(ctx, "INSERT INTO story (title, author_id, views) VALUES ('T0', $1, -5000), ('T1', $1, -3000), ('T2', $1, 100)", tidyAuthor); err != nil {
		t.Fatal(err)
	}
	_, err = q.TidyUp(ctx, qd.TidyUpParams{FewerViews: -1000, Name: "tidy", TelegramID: 702})
	var tidyDup *qd.UqMemberNameError
	if !errors.As(err, &tidyDup) {
		t.Fatalf("tidy_up with a taken name: %v", err)
	}
	var low int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM story WHERE views < -1000").Scan(&low); err != nil || low != 2 {
		t.Fatalf("stories after a failed tidy_up: %d, %v", low, err)
	}
	tidied, err := q.TidyUp(ctx, qd.TidyUpParams{FewerViews: -1000, Name: "tidy2", TelegramID: 703})
	if err != nil || tidied.StoriesDeleted != 2 || tidied.Member.Name != "tidy2" {
		t.Fatalf("tidy_up: %+v, %v", tidied, err)
	}
	var left int
	if err := db.QueryRow(ctx, "SELECT count(*) FROM story WHERE author_id = $1", tidyAuthor).Scan(&left); err != nil || left != 1 {
		t.Fatalf("stories after tidy_up: %d, %v", left, err)
	}
	if again, err := q.TidyUp(ctx, qd.TidyUpParams{FewerViews: -1000, Name: "tidy3", TelegramID: 704}); err != nil || again.StoriesDeleted != 0 {
		t.Fatalf("tidy_up again: %+v, %v", again, err)
	}
}
