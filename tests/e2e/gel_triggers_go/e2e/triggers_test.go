// End-to-end test of the generated Go runner of tests/cases/gel_triggers (see
// test_gel_triggers_e2e.py): mutation rewrites, Gel triggers and deletion policies hold for the
// runner's statements through pgx v5 against the database in $DATABASE_URL (they are Postgres
// triggers and foreign keys). The test empties the tables first.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	gt "schemactest/geltriggers"
)

func TestRewritesTriggersAndDeletionPolicies(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE author, image, tag, post, log, counter CASCADE`); err != nil {
		t.Fatal(err)
	}
	r := gt.New(db)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = r.Query.AddCounter(ctx, gt.AddCounterParams{Name: "posts"})
	must(err)
	count := func() int64 {
		t.Helper()
		rows, err := r.Query.PostCount(ctx)
		must(err)
		if len(rows) != 1 {
			t.Fatalf("counter rows: %+v", rows)
		}
		return rows[0].N
	}
	post := func(title string) *gt.PostsRow {
		t.Helper()
		posts, err := r.Query.Posts(ctx)
		must(err)
		for i := range posts {
			if posts[i].Title == title {
				return &posts[i]
			}
		}
		return nil
	}
	titles := func() []string {
		t.Helper()
		posts, err := r.Query.Posts(ctx)
		must(err)
		out := []string{}
		for _, p := range posts {
			out = append(out, p.Title)
		}
		return out
	}

	// Rewrites: slug and created_at on insert; slug, modified_at and revision on update.
	news, err := r.Query.AddTag(ctx, gt.AddTagParams{Name: "news"})
	must(err)
	misc, err := r.Query.AddTag(ctx, gt.AddTagParams{Name: "misc"})
	must(err)
	hello, err := r.Query.AddPost(ctx, gt.AddPostParams{Title: "  Hello World ", Tags: []string{news.ID}})
	must(err)
	_, err = r.Query.AddPost(ctx, gt.AddPostParams{Title: "Other", Tags: []string{misc.ID}})
	must(err)
	solo, err := r.Query.AddPost(ctx, gt.AddPostParams{Title: "Solo", Tags: []string{}})
	must(err)
	h := post("  Hello World ")
	if h == nil || h.Slug == nil || *h.Slug != "hello world" || h.ModifiedAt != nil || h.Revision != 0 ||
		h.CreatedAt.IsZero() || !reflect.DeepEqual(h.Tags, []gt.PostsTags{{Name: "news"}}) {
		t.Fatalf("inserted post: %+v", h)
	}
	created := h.CreatedAt
	renamed, err := r.Query.RenamePost(ctx, gt.RenamePostParams{ID: hello.ID, Title: "Hello Again"})
	must(err)
	if renamed == nil || renamed.ID != hello.ID {
		t.Fatalf("rename: %+v", renamed)
	}
	h = post("Hello Again")
	if h == nil || *h.Slug != "hello again" || !h.CreatedAt.Equal(created) || h.ModifiedAt == nil ||
		h.ModifiedAt.Before(created) || h.Revision != 1 {
		t.Fatalf("updated post: %+v", h)
	}
	_, err = r.Query.RenamePost(ctx, gt.RenamePostParams{ID: hello.ID, Title: "Hello Again"})
	must(err)
	if h = post("Hello Again"); h.Revision != 2 {
		t.Fatalf("revision: %d", h.Revision)
	}

	// Triggers: one log row per insert, per rename (when the title changed), per delete.
	deleted, err := r.Query.DeletePost(ctx, gt.DeletePostParams{ID: solo.ID})
	must(err)
	if deleted == nil || deleted.ID != solo.ID {
		t.Fatalf("delete: %+v", deleted)
	}
	logs, err := r.Query.Logs(ctx)
	must(err)
	want := []gt.LogsRow{
		{Action: "insert", Title: "  Hello World "},
		{Action: "rename", Title: "  Hello World  -> Hello Again"},
		{Action: "insert", Title: "Other"},
		{Action: "insert", Title: "Solo"},
		{Action: "delete", Title: "Solo"},
	}
	if !reflect.DeepEqual(logs, want) {
		t.Fatalf("logs: %+v", logs)
	}

	// Update bodies (one statement, and the second of a set): the counter follows.
	if n := count(); n != 2 {
		t.Fatalf("counter: %d", n)
	}
	// assert(): the insert fails with the message; nothing it did stays.
	_, err = r.Query.AddPost(ctx, gt.AddPostParams{Title: "LOUD NOISES", Tags: []string{news.ID}})
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "P0001" || pgErr.Message != "no shouting" {
		t.Fatalf("shouting: %v", err)
	}
	if n := count(); n != 2 {
		t.Fatalf("counter after the refused insert: %d", n)
	}

	// on target delete delete source: deleting a tag deletes the posts that have it.
	_, err = r.Query.DeleteTag(ctx, gt.DeleteTagParams{ID: misc.ID})
	must(err)
	if got := titles(); !reflect.DeepEqual(got, []string{"Hello Again"}) {
		t.Fatalf("posts after the tag: %v", got)
	}

	// on source delete delete target [if orphan]: an author's avatar goes with it; its posts
	// go unless another author lists them.
	ann, err := r.Query.AddAuthor(ctx, gt.AddAuthorParams{Name: "Ann"})
	must(err)
	bob, err := r.Query.AddAuthor(ctx, gt.AddAuthorParams{Name: "Bob"})
	must(err)
	img, err := r.Query.AddImage(ctx, gt.AddImageParams{URL: "ann.png"})
	must(err)
	_, err = r.Query.AddImage(ctx, gt.AddImageParams{URL: "keep.png"})
	must(err)
	_, err = r.Query.SetAvatar(ctx, gt.SetAvatarParams{ID: ann.ID, Image: img.ID})
	must(err)
	mine, err := r.Query.AddPost(ctx, gt.AddPostParams{Title: "Ann only", Tags: []string{}})
	must(err)
	_, err = r.Query.AddAuthored(ctx, gt.AddAuthoredParams{ID: ann.ID, Posts: []string{mine.ID, hello.ID}})
	must(err)
	_, err = r.Query.AddAuthored(ctx, gt.AddAuthoredParams{ID: bob.ID, Posts: []string{hello.ID}})
	must(err)
	_, err = r.Query.DeleteAuthor(ctx, gt.DeleteAuthorParams{ID: ann.ID})
	must(err)
	if got := titles(); !reflect.DeepEqual(got, []string{"Hello Again"}) {
		t.Fatalf("posts after Ann: %v", got)
	}
	images, err := r.Query.Images(ctx)
	must(err)
	if !reflect.DeepEqual(images, []gt.ImagesRow{{URL: "keep.png"}}) {
		t.Fatalf("images: %+v", images)
	}
	_, err = r.Query.DeleteAuthor(ctx, gt.DeleteAuthorParams{ID: bob.ID})
	must(err)
	if got := titles(); len(got) != 0 {
		t.Fatalf("posts after Bob: %v", got)
	}
	if n := count(); n != 0 {
		t.Fatalf("counter at the end: %d", n)
	}

	// A global the triggers read: the runner's globals reach them; without any, it is empty.
	eve := "eve"
	asEve := r.WithGlobals(gt.Globals{Actor: &eve})
	eves, err := asEve.Query.AddPost(ctx, gt.AddPostParams{Title: "By Eve", Tags: []string{}})
	must(err)
	_, err = asEve.Query.DeletePost(ctx, gt.DeletePostParams{ID: eves.ID})
	must(err)
	var actors []string
	rows, err := db.Query(ctx, `SELECT action || ':' || coalesce(actor, '-') FROM log WHERE title = 'By Eve' ORDER BY action DESC`)
	must(err)
	for rows.Next() {
		var a string
		must(rows.Scan(&a))
		actors = append(actors, a)
	}
	must(rows.Err())
	if !reflect.DeepEqual(actors, []string{"insert:eve", "delete:eve"}) {
		t.Fatalf("actors: %v", actors)
	}
	var others int
	must(db.QueryRow(ctx, `SELECT count(*) FROM log WHERE title <> 'By Eve' AND actor IS NOT NULL`).Scan(&others))
	if others != 0 {
		t.Fatalf("%d log rows without globals have an actor", others)
	}
}
