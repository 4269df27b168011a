// End-to-end test of the generated Go runner of tests/cases/function_calls (see
// test_function_calls_e2e.py): calls of user functions returning objects, inlined as the
// query, through pgx v5 against the database in $DATABASE_URL. The test empties the tables
// first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fc "schemactest/functioncalls"
)

func TestFunctionCalls(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE tag, post CASCADE`); err != nil {
		t.Fatal(err)
	}
	q := fc.New(db).Query

	// upsert: the first call inserts, the second returns the same object
	a, err := q.UpsertTag(ctx, fc.UpsertTagParams{Name: "a"})
	if err != nil {
		t.Fatal(err)
	}
	if again, err := q.UpsertTag(ctx, fc.UpsertTagParams{Name: "a"}); err != nil || again != a {
		t.Fatalf("UpsertTag(a) again = %q, %v; want %q", again, err, a)
	}
	b, err := q.UpsertTagShape(ctx, fc.UpsertTagShapeParams{Name: "b"})
	if err != nil || b.Name != "b" || b.Uses != 0 {
		t.Fatalf("UpsertTagShape(b) = %+v, %v", b, err)
	}
	var n int
	if err := db.QueryRow(ctx, `SELECT count(*) FROM tag`).Scan(&n); err != nil || n != 2 {
		t.Fatalf("tags = %d, %v", n, err)
	}

	// an insert: a positional argument, a parameter's default (score = 1)
	p1, err := q.NewPost(ctx, fc.NewPostParams{Title: "p1"})
	if err != nil || p1.Title != "p1" || p1.Score != 1 {
		t.Fatalf("NewPost(p1) = %+v, %v", p1, err)
	}
	p2, err := q.NewPostScored(ctx, fc.NewPostScoredParams{Title: "p2", Score: 5})
	if err != nil {
		t.Fatal(err)
	}
	var dup *fc.UqPostTitleError
	if _, err := q.NewPost(ctx, fc.NewPostParams{Title: "p1"}); !errors.As(err, &dup) {
		t.Fatalf("NewPost(p1) again: error %v, want UqPostTitleError", err)
	}

	// an object argument <Post>$post: the post of that id; none fails the statement
	c1, err := q.CommentOn(ctx, fc.CommentOnParams{Post: p2, Body: "nice"})
	if err != nil || c1.Body != "nice" || c1.Post.Title != "p2" {
		t.Fatalf("CommentOn(p2) = %+v, %v", c1, err)
	}
	if _, err := q.CommentOn(ctx, fc.CommentOnParams{Post: "00000000-0000-0000-0000-000000000000", Body: "lost"}); err == nil ||
		!strings.Contains(err.Error(), "assert_exists violation: expression returned an empty set") {
		t.Fatalf("CommentOn(no post) error = %v", err)
	}

	// set of: an update, and a select with order by and limit
	bumped, err := q.Bump(ctx, fc.BumpParams{Title: "p1"})
	if err != nil || !reflect.DeepEqual(bumped, []fc.BumpRow{{Title: "p1", Score: 2}}) {
		t.Fatalf("Bump(p1) = %+v, %v", bumped, err)
	}
	if none, err := q.Bump(ctx, fc.BumpParams{Title: "none"}); err != nil || len(none) != 0 {
		t.Fatalf("Bump(none) = %+v, %v", none, err)
	}
	top, err := q.TopPosts(ctx, fc.TopPostsParams{MinScore: 0, N: 1})
	if err != nil || !reflect.DeepEqual(top, []fc.TopPostsRow{{Title: "p2", Score: 5}}) {
		t.Fatalf("TopPosts(0, 1) = %+v, %v", top, err)
	}
	ids, err := q.TopPostIDs(ctx)
	if err != nil || len(ids) != 2 || ids[0].ID != p2 {
		t.Fatalf("TopPostIDs = %+v, %v", ids, err)
	}

	// optional: the property of the object, or nil
	if s, err := q.PostScore(ctx, fc.PostScoreParams{Title: "p2"}); err != nil || s == nil || *s != 5 {
		t.Fatalf("PostScore(p2) = %v, %v", s, err)
	}
	if s, err := q.PostScore(ctx, fc.PostScoreParams{Title: "zzz"}); err != nil || s != nil {
		t.Fatalf("PostScore(zzz) = %v, %v", s, err)
	}

	// count() of writes: each runs once, and every write and read of the statement sees the
	// database as it was before it (tag b, linked only by p1, is not unused yet)
	if _, err := db.Exec(ctx, `INSERT INTO post_tags (source_id, target_id) SELECT p.id, t.id FROM post p, tag t WHERE (p.title = 'p2' AND t.name = 'a') OR (p.title = 'p1' AND t.name = 'b')`); err != nil {
		t.Fatal(err)
	}
	c, err := q.CleanUp(ctx, fc.CleanUpParams{MinScore: 3})
	if err != nil || c != (fc.CleanUpRow{UnusedTags: 0, LowPosts: 1, Kept: 2}) {
		t.Fatalf("CleanUp(3) = %+v, %v", c, err)
	}
	c, err = q.CleanUp(ctx, fc.CleanUpParams{MinScore: 3})
	if err != nil || c != (fc.CleanUpRow{UnusedTags: 1, LowPosts: 0, Kept: 1}) {
		t.Fatalf("CleanUp(3) again = %+v, %v", c, err)
	}
	if n, err := q.ResetScores(ctx, fc.ResetScoresParams{Above: 4}); err != nil || n != 1 {
		t.Fatalf("ResetScores(4) = %d, %v", n, err)
	}
	if n, err := q.DropTag(ctx, fc.DropTagParams{Name: "zzz"}); err != nil || n != 0 {
		t.Fatalf("DropTag(zzz) = %d, %v", n, err)
	}
	var fk *fc.FkPostTagsTargetIDError
	if _, err := q.DropTag(ctx, fc.DropTagParams{Name: "a"}); !errors.As(err, &fk) {
		t.Fatalf("DropTag(a) of a linked tag: error %v, want FkPostTagsTargetIDError", err)
	}
}
