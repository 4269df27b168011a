// End-to-end test of the generated Go runner of tests/cases/computeds (see
// test_gel_computeds_e2e.py): computed properties and links and backlinks selected, filtered and
// ordered on, through pgx v5 against the database in $DATABASE_URL. The test empties the tables
// first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	cp "schemactest/computeds"
)

func TestComputeds(t *testing.T) {
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
	if _, err := db.Exec(ctx, `TRUNCATE "user", tag CASCADE`); err != nil {
		t.Fatal(err)
	}
	ann := id(`INSERT INTO "user" (first_name, last_name) VALUES ('Ann', 'Lee') RETURNING id`)
	bob := id(`INSERT INTO "user" (first_name) VALUES ('Bob') RETURNING id`)
	id(`INSERT INTO "user" (first_name, last_name) VALUES ('Cid', 'Q') RETURNING id`)
	tags := map[string]string{"go": id(`INSERT INTO tag (name) VALUES ('go') RETURNING id`),
		"sql": id(`INSERT INTO tag (name) VALUES ('sql') RETURNING id`)}
	post := func(title, author string, names ...string) {
		p := id(`INSERT INTO post (title, author_id) VALUES ($1, $2) RETURNING id`, title, author)
		for _, n := range names {
			if _, err := db.Exec(ctx, `INSERT INTO post_tags (source_id, target_id) VALUES ($1, $2)`, p, tags[n]); err != nil {
				t.Fatal(err)
			}
		}
	}
	post("hello", ann, "go", "sql")
	post("world", ann, "go")
	post("bob post", bob, "sql")
	q := cp.New(db).Query

	authors, err := q.Authors(ctx, cp.AuthorsParams{})
	if err != nil {
		t.Fatal(err)
	}
	type author struct {
		first, full string
		count       int64
		posts       []string
	}
	var got []author
	for _, a := range authors {
		full := "<empty>"
		if a.FullName != nil {
			full = *a.FullName
		}
		var posts []string
		for _, p := range a.Posts {
			posts = append(posts, p.Title+"/"+p.Shout)
		}
		sort.Strings(posts)
		got = append(got, author{a.FirstName, full, a.PostCount, posts})
	}
	want := []author{{"Ann", "Ann Lee", 2, []string{"hello/HELLO", "world/WORLD"}}, {"Cid", "Cid Q", 0, nil},
		{"Bob", "<empty>", 1, []string{"bob post/BOB POST"}}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("authors: %+v", got)
	}

	prolific, err := q.Prolific(ctx, cp.ProlificParams{Min: 1})
	if err != nil || len(prolific) != 2 || *prolific[0].FullName != "Ann Lee" || prolific[1].FullName != nil {
		t.Fatalf("prolific: %+v %v", prolific, err)
	}
	with, err := q.WithPosts(ctx, cp.WithPostsParams{})
	if err != nil || len(with) != 2 || with[0].FirstName != "Ann" || with[1].FirstName != "Bob" {
		t.Fatalf("with posts: %+v %v", with, err)
	}

	page, err := q.TagPage(ctx, cp.TagPageParams{Name: "sql"})
	if err != nil || page == nil || page.Go == nil || page.Go.Name != "go" || len(page.Posts) != 2 {
		t.Fatalf("tag page: %+v %v", page, err)
	}
	var names []string
	for _, p := range page.Posts {
		n := "<empty>"
		if p.Author.FullName != nil {
			n = *p.Author.FullName
		}
		names = append(names, p.Title+"/"+n)
	}
	sort.Strings(names)
	if !reflect.DeepEqual(names, []string{"bob post/<empty>", "hello/Ann Lee"}) {
		t.Fatalf("tag page posts: %v", names)
	}
	if none, err := q.TagPage(ctx, cp.TagPageParams{Name: "nope"}); none != nil || err != nil {
		t.Fatalf("no tag: %v %v", none, err)
	}

	if mine, err := q.MyPosts(ctx, cp.MyPostsParams{}); err != nil || len(mine) != 0 {
		t.Fatalf("no viewer: %v %v", mine, err)
	}
	mine, err := cp.New(db).WithGlobals(cp.Globals{ViewerID: &bob}).Query.MyPosts(ctx, cp.MyPostsParams{})
	if err != nil || len(mine) != 1 || mine[0].Title != "bob post" || !mine[0].IsMine {
		t.Fatalf("Bob's posts: %+v %v", mine, err)
	}
}
