// End-to-end test of the generated Go runner of tests/cases/computed_subqueries (see
// test_gel_computed_subqueries_e2e.py): computeds made of sub-queries (filtered backlinks and
// links, aggregates over them, exists of a sub-select, max of a set, a sub-select reading its
// object by type name) and a computed global with a shape, through pgx v5 against the database
// in $DATABASE_URL. The test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	cs "schemactest/computedsubqueries"
)

func TestComputedSubqueries(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	id := func(sql string, args ...any) string {
		t.Helper()
		var v string
		if err := db.QueryRow(ctx, sql, args...).Scan(&v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec(`TRUNCATE author, note CASCADE`)
	author := func(name, handle string, a, b *int32) string {
		return id(`INSERT INTO author (name, handle, score_a, score_b) VALUES ($1, $2, $3, $4) RETURNING id`,
			name, handle, a, b)
	}
	i32 := func(v int32) *int32 { return &v }
	ann := author("Ann", "ann", i32(3), i32(7))
	abe := author("Abe", "abe", nil, i32(2))
	bob := author("Bob", "bob", nil, nil)
	cid := author("Cid", "cid", i32(1), nil)
	for _, f := range []string{abe, bob, cid} {
		exec(`INSERT INTO author_follows (source_id, target_id) VALUES ($1, $2)`, ann, f)
	}
	post := func(title, by string, published bool, likes int32, created string, editor *string) {
		exec(`INSERT INTO post (title, author_id, published, likes, created, editor_handle)
		      VALUES ($1, $2, $3, $4, $5, $6)`, title, by, published, likes, created, editor)
	}
	str := func(s string) *string { return &s }
	post("a1", ann, true, 5, "2024-01-01T00:00:00Z", str("bob"))
	post("a2", ann, true, 10, "2024-02-01T00:00:00Z", nil)
	post("a3", ann, false, 1, "2024-03-01T00:00:00Z", str("nobody"))
	post("b1", bob, false, 0, "2024-04-01T00:00:00Z", str("ann"))
	q := cs.New(db).Query

	page, err := q.AuthorPage(ctx, cs.AuthorPageParams{Name: "Ann"})
	if err != nil || page == nil {
		t.Fatalf("Ann: %v %v", page, err)
	}
	day := func(s string) time.Time {
		v, err := time.Parse(time.RFC3339, s)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	var titles, names []string
	for _, p := range page.Published {
		titles = append(titles, p.Title)
	}
	for _, f := range page.FollowedA {
		names = append(names, f.Name)
	}
	sort.Strings(titles)
	if page.FirstPost == nil || !page.FirstPost.Equal(day("2024-01-01T00:00:00Z")) ||
		page.LastPublished == nil || !page.LastPublished.Equal(day("2024-02-01T00:00:00Z")) ||
		page.TotalLikes != 16 || !page.HasDrafts || page.BestScore == nil || *page.BestScore != 7 ||
		!reflect.DeepEqual(titles, []string{"a1", "a2"}) || !reflect.DeepEqual(names, []string{"Abe"}) {
		t.Fatalf("Ann: %+v", page)
	}

	abePage, err := q.AuthorPage(ctx, cs.AuthorPageParams{Name: "Abe"})
	if err != nil || abePage == nil || abePage.FirstPost != nil || abePage.LastPublished != nil ||
		abePage.TotalLikes != 0 || abePage.HasDrafts || abePage.BestScore == nil || *abePage.BestScore != 2 ||
		len(abePage.Published) != 0 || len(abePage.FollowedA) != 0 {
		t.Fatalf("Abe: %+v %v", abePage, err)
	}
	bobPage, err := q.AuthorPage(ctx, cs.AuthorPageParams{Name: "Bob"})
	if err != nil || bobPage == nil || !bobPage.HasDrafts || bobPage.BestScore != nil || bobPage.LastPublished != nil ||
		bobPage.FirstPost == nil || !bobPage.FirstPost.Equal(day("2024-04-01T00:00:00Z")) {
		t.Fatalf("Bob: %+v %v", bobPage, err)
	}

	liked, err := q.LikedAuthors(ctx, cs.LikedAuthorsParams{Min: 1})
	if err != nil || len(liked) != 1 || liked[0].Name != "Ann" || liked[0].TotalLikes != 16 {
		t.Fatalf("liked: %+v %v", liked, err)
	}
	all, err := q.LikedAuthors(ctx, cs.LikedAuthorsParams{Min: 0})
	if err != nil || len(all) != 4 || all[1].Name != "Abe" || all[3].Name != "Cid" {
		t.Fatalf("all: %+v %v", all, err)
	}

	if mine, err := q.MyPosts(ctx); err != nil || len(mine) != 0 {
		t.Fatalf("nobody signed in: %v %v", mine, err)
	}
	if me, err := q.Whoami(ctx); err != nil || me != nil {
		t.Fatalf("nobody signed in: %v %v", me, err)
	}
	asAnn := cs.New(db).WithGlobals(cs.Globals{CurrentUserID: &ann})
	mine, err := asAnn.Query.MyPosts(ctx)
	if err != nil || len(mine) != 3 || mine[0].Title != "a1" || mine[0].Editor == nil || mine[0].Editor.Name != "Bob" ||
		mine[1].Editor != nil || mine[2].Editor != nil {
		t.Fatalf("Ann's posts: %+v %v", mine, err)
	}
	me, err := asAnn.WithGlobals(cs.Globals{CurrentUserID: &bob}).Query.Whoami(ctx)
	if err != nil || me == nil || me.Name != "Bob" || me.Handle != "bob" {
		t.Fatalf("whoami: %+v %v", me, err)
	}

	// Paths through links, unions, [is T] on a polymorphic link, re_match_all in a with block.
	postID := func(title string) string { return id(`SELECT id FROM post WHERE title = $1`, title) }
	for _, r := range [][2]string{{"a1", abe}, {"a1", bob}, {"a2", abe}, {"a2", ann}} {
		exec(`INSERT INTO post_reviewers (source_id, target_id) VALUES ($1, $2)`, postID(r[0]), r[1])
	}
	exec(`UPDATE post SET co_author_id = $1 WHERE title = 'b1'`, abe)
	post("wow!! OMG!", cid, true, 0, "2024-05-01T00:00:00Z", nil)
	note := id(`INSERT INTO note (text) VALUES ('n') RETURNING id`)
	exec(`INSERT INTO author_pins (source_id, target_id, target_post_id) VALUES ($1, $2, $2)`, ann, postID("a1"))
	exec(`INSERT INTO author_pins (source_id, target_id, target_note_id) VALUES ($1, $2, $2)`, ann, note)
	circles, err := q.Circles(ctx)
	if err != nil || len(circles) != 4 {
		t.Fatalf("circles: %+v %v", circles, err)
	}
	type circle struct {
		name    string
		open    bool
		size    int64
		revs    []string
		members []string
		pinned  []string
		best    string
		outside []string
	}
	var got []circle
	for _, c := range circles {
		x := circle{name: c.Name, open: c.HasOpenWork, size: c.CircleSize}
		for _, r := range c.MyReviewers {
			x.revs = append(x.revs, r.Name)
		}
		for _, m := range c.Circle {
			x.members = append(x.members, m.Name)
		}
		for _, p := range c.PinnedPosts {
			x.pinned = append(x.pinned, p.Title)
		}
		if c.BestPost != nil {
			x.best = c.BestPost.Title
		}
		for _, o := range c.OutsideReviewers {
			x.outside = append(x.outside, o.Name)
		}
		sort.Strings(x.revs)
		sort.Strings(x.members)
		sort.Strings(x.outside)
		got = append(got, x)
	}
	want := []circle{{"Abe", true, 0, nil, nil, nil, "", nil},
		{"Ann", true, 6, []string{"Abe", "Ann", "Bob"}, []string{"Abe", "Abe", "Ann", "Bob", "Bob", "Cid"},
			[]string{"a1"}, "a2", []string{"Abe", "Bob"}},
		{"Bob", true, 0, nil, nil, nil, "", nil}, {"Cid", false, 0, nil, nil, nil, "", nil}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("circles: %+v", got)
	}
	// Two objects where assert_single allows one: the statement fails (SQLSTATE 21000).
	exec(`UPDATE post SET likes = 20 WHERE title = 'a1'`)
	var pgErr *pgconn.PgError
	if _, err := q.Circles(ctx); !errors.As(err, &pgErr) || pgErr.Code != "21000" {
		t.Fatalf("two best posts: %v", err)
	}
	exec(`UPDATE post SET likes = 5 WHERE title = 'a1'`)
	marks, err := q.PostMarks(ctx)
	if err != nil || len(marks) != 5 || marks[0].Bangs != 0 || marks[0].Loud ||
		marks[4].Title != "wow!! OMG!" || marks[4].Bangs != 2 || !marks[4].Loud {
		t.Fatalf("post marks: %+v %v", marks, err)
	}
}
