// End-to-end test of the generated Go runner of tests/cases/gel_shapes (see
// test_gel_shapes_e2e.py): splats, computed shape elements and query files named in
// kebab-case / camelCase, through pgx v5 against the database in $DATABASE_URL. The test
// empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gs "schemactest/gelshapes"
)

func TestGelShapes(t *testing.T) {
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
	if _, err := db.Exec(ctx, "TRUNCATE author, tag CASCADE"); err != nil {
		t.Fatal(err)
	}
	ann := id("INSERT INTO author (name, bio) VALUES ('Ann', 'writes') RETURNING id")
	bob := id("INSERT INTO author (name) VALUES ('Bob') RETURNING id")
	alpha := id("INSERT INTO book (title, pages, author_id) VALUES ('Alpha', 420, $1) RETURNING id", ann)
	id("INSERT INTO book (title, pages, author_id) VALUES ('Beta', NULL, $1) RETURNING id", ann)
	sf := id("INSERT INTO tag (name) VALUES ('sf') RETURNING id")
	if _, err := db.Exec(ctx, "INSERT INTO book_tags (source_id, target_id) VALUES ($1, $2)", alpha, sf); err != nil {
		t.Fatal(err)
	}
	q := gs.New(db).Query
	writes := "writes"

	// {*}: every property, the computed shout included.
	all, err := q.AuthorsAll(ctx, gs.AuthorsAllParams{})
	want := []gs.AuthorsAllRow{{ID: ann, Name: "Ann", Bio: &writes, Shout: "ANN"}, {ID: bob, Name: "Bob", Shout: "BOB"}}
	if err != nil || !reflect.DeepEqual(all, want) {
		t.Fatalf("authors_all: %+v, %v", all, err)
	}

	// {**}: every link with its properties.
	d, err := q.BookDetails(ctx, gs.BookDetailsParams{ID: alpha})
	if err != nil || d == nil || d.Title != "Alpha" || d.Pages == nil || *d.Pages != 420 ||
		d.Author.Name != "Ann" || d.Author.Shout != "ANN" || d.Author.Bio == nil || *d.Author.Bio != "writes" ||
		len(d.Tags) != 1 || d.Tags[0].ID != sf || d.Tags[0].Name != "sf" {
		t.Fatalf("book_details: %+v, %v", d, err)
	}
	if none, err := q.BookDetails(ctx, gs.BookDetailsParams{ID: bob}); err != nil || none != nil {
		t.Fatalf("book_details of no book: %+v, %v", none, err)
	}

	// Computed elements.
	stats, err := q.BookStats(ctx, gs.BookStatsParams{Suffix: "!"})
	if err != nil || len(stats) != 2 {
		t.Fatalf("book_stats: %+v, %v", stats, err)
	}
	a, b := stats[0], stats[1]
	if a.Title != "Alpha" || a.TagCount != 1 || a.Long == nil || !*a.Long || a.Label != "Alpha!" ||
		a.Author.Name != "Ann" || a.Author.NameLength != 3 {
		t.Fatalf("book_stats Alpha: %+v", a)
	}
	if b.Title != "Beta" || b.TagCount != 0 || b.Long != nil || b.Label != "Beta!" {
		t.Fatalf("book_stats Beta: %+v", b)
	}

	// An element next to a splat replaces the splat's.
	bv, err := q.AuthorOverview(ctx, gs.AuthorOverviewParams{Name: "Bob"})
	if err != nil || bv == nil || bv.Bio != "(none)" || bv.Shout != "BOB" || len(bv.Books) != 0 {
		t.Fatalf("author_overview Bob: %+v, %v", bv, err)
	}
	av, err := q.AuthorOverview(ctx, gs.AuthorOverviewParams{Name: "Ann"})
	if err != nil || av == nil || av.Bio != "writes" {
		t.Fatalf("author_overview Ann: %+v, %v", av, err)
	}
	var titles []string
	for _, bk := range av.Books {
		titles = append(titles, bk.Title)
	}
	sort.Strings(titles)
	if !reflect.DeepEqual(titles, []string{"Alpha", "Beta"}) {
		t.Fatalf("author_overview books: %v", titles)
	}

	// A property through a single link.
	byAnn, err := q.BooksByAuthor(ctx, gs.BooksByAuthorParams{Pattern: "a%"})
	wantBooks := []gs.BooksByAuthorRow{{Title: "Alpha", By: "Ann"}, {Title: "Beta", By: "Ann"}}
	if err != nil || !reflect.DeepEqual(byAnn, wantBooks) {
		t.Fatalf("books_by_author: %+v, %v", byAnn, err)
	}

	// Author.name is .name; exclusive, so one row or nil.
	one, err := q.AuthorByName(ctx, gs.AuthorByNameParams{Name: "Ann"})
	if err != nil || one == nil || one.Name != "Ann" || one.BookCount != 2 {
		t.Fatalf("author_by_name: %+v, %v", one, err)
	}
	if none, err := q.AuthorByName(ctx, gs.AuthorByNameParams{Name: "Nobody"}); err != nil || none != nil {
		t.Fatalf("author_by_name of nobody: %+v, %v", none, err)
	}

	// Links named without a shape: their objects' ids.
	ids, err := q.AuthorLinkIDs(ctx, gs.AuthorLinkIDsParams{Name: "Ann"})
	if err != nil || ids == nil || ids.Name != "Ann" || len(ids.Books) != 2 || len(ids.Written) != 2 {
		t.Fatalf("author_link_ids: %+v, %v", ids, err)
	}
	bookIDs := []string{ids.Books[0].ID, ids.Books[1].ID}
	sort.Strings(bookIDs)
	wantIDs := []string{alpha, id("SELECT id FROM book WHERE title = 'Beta'")}
	sort.Strings(wantIDs)
	if !reflect.DeepEqual(bookIDs, wantIDs) {
		t.Fatalf("author_link_ids books: %v, want %v", bookIDs, wantIDs)
	}
	for _, w := range ids.Written {
		wantTags := []gs.AuthorLinkIDsWrittenTags{}
		if w.Title == "Alpha" {
			wantTags = []gs.AuthorLinkIDsWrittenTags{{ID: sf}}
		}
		if w.Author.ID != ann || !reflect.DeepEqual(w.Tags, wantTags) {
			t.Fatalf("author_link_ids written: %+v", w)
		}
	}
	if none, err := q.AuthorLinkIDs(ctx, gs.AuthorLinkIDsParams{Name: "Nobody"}); err != nil || none != nil {
		t.Fatalf("author_link_ids of nobody: %+v, %v", none, err)
	}
}
