// End-to-end test of the generated Go runner of tests/cases/query_links (see
// test_query_links_e2e.py), through pgx v5 against the database in $DATABASE_URL: links
// assigned with-bound selections, assert_exists / assert_single of them and
// `-= (select .link filter ...)`; polymorphic multi links written through with names; writes
// bound in `with`, selected with a nested shape and upserts on types with access policies.
// The test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	ql "schemactest/querylinks"
)

func texts(t *testing.T, db *pgxpool.Pool, sql string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(context.Background(), sql, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func denied(err error, action, message string) bool {
	var ap *ql.AccessPolicyError
	return errors.As(err, &ap) && ap.Action == action && ap.Message == message && errors.Is(err, ql.ErrAccessPolicy)
}

func sqlstate(err error, code string) bool {
	var pg *pgconn.PgError
	return errors.As(err, &pg) && pg.Code == code
}

func TestQueryLinks(t *testing.T) {
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
	exec(`TRUNCATE club, member, shelf, book, film CASCADE`)
	var a, b string
	if err := db.QueryRow(ctx, `INSERT INTO club (name) VALUES ('A') RETURNING id`).Scan(&a); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(ctx, `INSERT INTO club (name) VALUES ('B') RETURNING id`).Scan(&b); err != nil {
		t.Fatal(err)
	}
	exec(`INSERT INTO book (code, pages) VALUES ('B1', 300)`)
	exec(`INSERT INTO film (code, minutes) VALUES ('F1', 90), ('F2', 150), ('F3', 200)`)
	nobody := ql.New(db)
	inA := nobody.WithGlobals(ql.Globals{ClubID: &a}).Query
	inB := nobody.WithGlobals(ql.Globals{ClubID: &b}).Query
	points := func(club, handle string) []string {
		t.Helper()
		return texts(t, db, `SELECT points::text FROM member WHERE club_id = $1 AND handle = $2`, club, handle)
	}

	// Upserts: the insert check for a new member, the update check for an existing one; a
	// conflicting member the update policies hide is left alone (nil).
	m, err := inA.MemberUpsertSelect(ctx, ql.MemberUpsertSelectParams{Handle: "ann", Points: 5})
	if err != nil || m == nil || *m != (ql.MemberUpsertSelectRow{Handle: "ann", Points: 5}) {
		t.Fatalf("first upsert: %+v %v", m, err)
	}
	m, err = inA.MemberUpsertSelect(ctx, ql.MemberUpsertSelectParams{Handle: "ann", Points: 3})
	if err != nil || m == nil || m.Points != 8 {
		t.Fatalf("second upsert: %+v %v", m, err)
	}
	if _, err := inA.MemberUpsertSelect(ctx, ql.MemberUpsertSelectParams{Handle: "bob", Points: -1}); !denied(err, "insert", "points cannot go below zero") {
		t.Fatalf("negative insert: %v", err)
	}
	if _, err := inA.MemberUpsertSelect(ctx, ql.MemberUpsertSelectParams{Handle: "ann", Points: -100}); !denied(err, "update", "points cannot go below zero") {
		t.Fatalf("negative update: %v", err)
	}
	if got := points(a, "ann"); !reflect.DeepEqual(got, []string{"8"}) {
		t.Fatalf("ann's points: %v", got)
	}
	if got := points(a, "bob"); len(got) != 0 {
		t.Fatalf("bob was written: %v", got)
	}
	if m, err := inB.MemberUpsertSelect(ctx, ql.MemberUpsertSelectParams{Handle: "ann", Points: 1}); err != nil || m == nil || m.Points != 1 {
		t.Fatalf("ann in B: %+v %v", m, err)
	}
	if row, err := inB.MemberUpsert(ctx, ql.MemberUpsertParams{Club: a, Handle: "ann", Points: 50}); err != nil || row != nil {
		t.Fatalf("B updated A's member: %+v %v", row, err)
	}
	if got := points(a, "ann"); !reflect.DeepEqual(got, []string{"8"}) {
		t.Fatalf("ann's points after B: %v", got)
	}
	if _, err := inB.MemberUpsert(ctx, ql.MemberUpsertParams{Club: a, Handle: "zed", Points: 1}); !denied(err, "insert", "only members of the club write this") {
		t.Fatalf("B inserted into A: %v", err)
	}
	cat, err := inA.MemberUpsert(ctx, ql.MemberUpsertParams{Club: a, Handle: "cat", Points: 2})
	if err != nil || cat == nil {
		t.Fatalf("cat: %+v %v", cat, err)
	}
	if again, err := inA.MemberUpsert(ctx, ql.MemberUpsertParams{Club: a, Handle: "cat", Points: 1}); err != nil || again == nil || *again != *cat {
		t.Fatalf("cat again: %+v %v", again, err)
	}
	if got := points(a, "cat"); !reflect.DeepEqual(got, []string{"3"}) {
		t.Fatalf("cat's points: %v", got)
	}

	// An update bound in `with`.
	if m, err := inA.MemberAddPoints(ctx, ql.MemberAddPointsParams{Handle: "ann", Points: 2}); err != nil || m == nil || m.Points != 10 {
		t.Fatalf("add points: %+v %v", m, err)
	}
	if _, err := inA.MemberAddPoints(ctx, ql.MemberAddPointsParams{Handle: "ann", Points: -50}); !denied(err, "update", "points cannot go below zero") {
		t.Fatalf("negative points: %v", err)
	}
	if got := points(a, "ann"); !reflect.DeepEqual(got, []string{"10"}) {
		t.Fatalf("ann's points after a refused update: %v", got)
	}
	if m, err := inB.MemberAddPoints(ctx, ql.MemberAddPointsParams{Handle: "cat", Points: 1}); err != nil || m != nil {
		t.Fatalf("B's update: %+v %v", m, err)
	}

	// Inserts bound in `with` and selected with a nested shape.
	s, err := inA.ShelfCreate(ctx, ql.ShelfCreateParams{Title: "Classics", Handle: "ann"})
	if err != nil || s.Title != "Classics" || s.Curator == nil || s.Curator.Handle != "ann" {
		t.Fatalf("shelf: %+v %v", s, err)
	}
	if s, err := inA.ShelfCreate(ctx, ql.ShelfCreateParams{Title: "Loose", Handle: "nobody"}); err != nil || s.Curator != nil {
		t.Fatalf("shelf without curator: %+v %v", s, err)
	}
	d, err := inA.ShelfCreateDirect(ctx, ql.ShelfCreateDirectParams{Title: "Films", Handle: "cat"})
	if err != nil || d.Curator == nil || d.Curator.Handle != "cat" {
		t.Fatalf("direct shelf: %+v %v", d, err)
	}
	if _, err := inA.ShelfCreate(ctx, ql.ShelfCreateParams{Title: "", Handle: "ann"}); !denied(err, "insert", "a shelf needs a title") {
		t.Fatalf("untitled shelf: %v", err)
	}
	if _, err := inA.ShelfCreateDirect(ctx, ql.ShelfCreateDirectParams{Title: "", Handle: "ann"}); !denied(err, "insert", "a shelf needs a title") {
		t.Fatalf("untitled direct shelf: %v", err)
	}
	var notNull *ql.NotNullViolationError
	if _, err := nobody.Query.ShelfCreate(ctx, ql.ShelfCreateParams{Title: "Nowhere", Handle: "ann"}); !errors.As(err, &notNull) {
		t.Fatalf("shelf without a club: %v", err)
	}
	for i, title := range []string{"Dan's", "Dan's too"} {
		f, err := inA.ShelfForMember(ctx, ql.ShelfForMemberParams{Handle: "dan", Title: title})
		if err != nil || f.Title != title || f.Curator == nil || f.Curator.Handle != "dan" || f.Curator.Points != int32(i+1) {
			t.Fatalf("shelf for a member written by the same statement: %+v %v", f, err)
		}
	}
	exec(`DELETE FROM shelf WHERE title LIKE 'Dan''s%'`)
	if got := texts(t, db, `SELECT title FROM shelf ORDER BY title`); !reflect.DeepEqual(got, []string{"Classics", "Films", "Loose"}) {
		t.Fatalf("shelves: %v", got)
	}

	// A polymorphic multi link written through with names.
	classics := texts(t, db, `SELECT id::text FROM shelf WHERE title = 'Classics'`)[0]
	works := func() []string {
		t.Helper()
		return texts(t, db, `SELECT coalesce(b.code, f.code) || CASE WHEN w.target_book_id IS NULL THEN ':film' ELSE ':book' END
			FROM shelf_works w LEFT JOIN book b ON b.id = w.target_book_id LEFT JOIN film f ON f.id = w.target_film_id
			WHERE w.source_id = $1 ORDER BY 1`, classics)
	}
	if r, err := inA.ShelfAddBook(ctx, ql.ShelfAddBookParams{Code: "B1", ID: classics}); err != nil || r == nil || r.ID != classics {
		t.Fatalf("add book: %+v %v", r, err)
	}
	if r, err := inA.ShelfAddFilms(ctx, ql.ShelfAddFilmsParams{ID: classics, LongerThan: 100}); err != nil || r == nil {
		t.Fatalf("add films: %+v %v", r, err)
	}
	if got := works(); !reflect.DeepEqual(got, []string{"B1:book", "F2:film", "F3:film"}) {
		t.Fatalf("works: %v", got)
	}
	if r, err := inA.ShelfDropFilm(ctx, ql.ShelfDropFilmParams{Code: "F2", ID: classics}); err != nil || r == nil {
		t.Fatalf("drop film: %+v %v", r, err)
	}
	if r, err := inB.ShelfDropFilm(ctx, ql.ShelfDropFilmParams{Code: "F3", ID: classics}); err != nil || r != nil {
		t.Fatalf("B dropped a film: %+v %v", r, err)
	}
	if got := works(); !reflect.DeepEqual(got, []string{"B1:book", "F3:film"}) {
		t.Fatalf("works after the drop: %v", got)
	}
	exec(`UPDATE shelf SET highlight_book_id = (SELECT id FROM book) WHERE id = $1`, classics)
	highlight := func() []string {
		t.Helper()
		return texts(t, db, `SELECT coalesce(f.code, '-') || '/' || coalesce(b.code, '-') FROM shelf s
			LEFT JOIN film f ON f.id = s.highlight_film_id LEFT JOIN book b ON b.id = s.highlight_book_id
			WHERE s.id = $1`, classics)
	}
	if r, err := inA.ShelfHighlight(ctx, ql.ShelfHighlightParams{Code: "F3", ID: classics}); err != nil || r == nil {
		t.Fatalf("highlight: %+v %v", r, err)
	}
	if got := highlight(); !reflect.DeepEqual(got, []string{"F3/-"}) {
		t.Fatalf("highlight: %v", got)
	}
	var cardErr *ql.CardinalityViolationError
	if _, err := inA.ShelfHighlight(ctx, ql.ShelfHighlightParams{Code: "F9", ID: classics}); !errors.As(err, &cardErr) ||
		cardErr.Function != "assert_exists" {
		t.Fatalf("highlight an unknown film: %v", err)
	}
	if got := highlight(); !reflect.DeepEqual(got, []string{"F3/-"}) {
		t.Fatalf("highlight after a failed update: %v", got)
	}

	// assert_exists, and `-= (select .follows filter ...)`.
	films := texts(t, db, `SELECT id::text FROM shelf WHERE title = 'Films'`)[0]
	follows := func() []string {
		t.Helper()
		return texts(t, db, `SELECT s.title FROM member_follows f JOIN shelf s ON s.id = f.target_id
			JOIN member m ON m.id = f.source_id WHERE m.club_id = $1 AND m.handle = 'ann' ORDER BY 1`, a)
	}
	for _, shelf := range []string{classics, films} {
		if r, err := inA.MemberFollow(ctx, ql.MemberFollowParams{Shelf: shelf, Handle: "ann"}); err != nil || r == nil {
			t.Fatalf("follow: %+v %v", r, err)
		}
	}
	if _, err := inA.MemberFollow(ctx, ql.MemberFollowParams{Shelf: "00000000-0000-0000-0000-000000000000", Handle: "ann"}); !errors.Is(err, ql.ErrCardinalityViolation) ||
		err.Error() != "assert_exists violation: expression returned an empty set" {
		t.Fatalf("follow an unknown shelf: %v", err)
	}
	if got := follows(); !reflect.DeepEqual(got, []string{"Classics", "Films"}) {
		t.Fatalf("follows: %v", got)
	}
	if r, err := inA.MemberUnfollowTitled(ctx, ql.MemberUnfollowTitledParams{Handle: "ann", Title: "Films"}); err != nil || r == nil {
		t.Fatalf("unfollow: %+v %v", r, err)
	}
	if got := follows(); !reflect.DeepEqual(got, []string{"Classics"}) {
		t.Fatalf("follows after unfollow: %v", got)
	}

	// A filter through an exclusive property of a single link pins one member.
	if m, err := inB.MemberShelves(ctx, ql.MemberShelvesParams{Club: "A", Handle: "ann"}); err != nil || m.Handle != "ann" ||
		len(m.Follows) != 1 || m.Follows[0].Title != "Classics" {
		t.Fatalf("member shelves: %+v %v", m, err)
	}
	if _, err := inA.MemberShelves(ctx, ql.MemberShelvesParams{Club: "A", Handle: "nobody"}); !errors.Is(err, ql.ErrCardinalityViolation) {
		t.Fatal("assert_exists of no member returned no error")
	}

	// assert_single of a selection that may hold several members.
	curator := func() []string {
		t.Helper()
		return texts(t, db, `SELECT m.handle FROM shelf s JOIN member m ON m.id = s.curator_id WHERE s.id = $1`, classics)
	}
	if r, err := inA.ShelfSetCurator(ctx, ql.ShelfSetCuratorParams{ID: classics, Handle: "cat"}); err != nil || r == nil {
		t.Fatalf("set curator: %+v %v", r, err)
	}
	if _, err := inA.ShelfSetCurator(ctx, ql.ShelfSetCuratorParams{ID: classics, Handle: "ann"}); !sqlstate(err, "21000") ||
		!errors.Is(err, ql.ErrCardinalityViolation) {
		t.Fatalf("two curators: %v", err)
	}
	if got := curator(); !reflect.DeepEqual(got, []string{"cat"}) {
		t.Fatalf("curator: %v", got)
	}

	// A new object's multi links, selected in the same statement.
	long, err := inA.ShelfCreateWithFilms(ctx, ql.ShelfCreateWithFilmsParams{Title: "Long", LongerThan: 100})
	if err != nil || !reflect.DeepEqual(long.Works, []ql.ShelfCreateWithFilmsWorks{{Code: "F2"}, {Code: "F3"}}) {
		t.Fatalf("new shelf's works: %+v %v", long, err)
	}
	eve, err := inA.MemberJoinFollowing(ctx, ql.MemberJoinFollowingParams{Handle: "eve", Titles: []string{"Films", "Classics", "Nope"}})
	if err != nil || !reflect.DeepEqual(eve.Follows, []ql.MemberJoinFollowingFollows{{Title: "Classics"}, {Title: "Films"}}) {
		t.Fatalf("new member's follows: %+v %v", eve, err)
	}

	// Writes bound in `with` as the values of a free object's fields; assert_exists of a write
	// that wrote nothing fails the statement, which then writes nothing.
	ann := texts(t, db, `SELECT id::text FROM member WHERE club_id = $1 AND handle = 'ann'`, a)[0]
	fs, err := inA.MemberFollowShelf(ctx, ql.MemberFollowShelfParams{Handle: "ann", ShelfID: films})
	if err != nil || fs.Member.ID != ann || fs.Shelf.Title != "Films" {
		t.Fatalf("follow shelf: %+v %v", fs, err)
	}
	if got := follows(); !reflect.DeepEqual(got, []string{"Classics", "Films"}) {
		t.Fatalf("follows after follow shelf: %v", got)
	}
	if _, err := inA.MemberFollowShelf(ctx, ql.MemberFollowShelfParams{Handle: "nobody", ShelfID: classics}); err == nil {
		t.Fatal("assert_exists of an update of no member returned no error")
	}
	loose := texts(t, db, `SELECT id::text FROM shelf WHERE title = 'Loose'`)[0]
	catID := texts(t, db, `SELECT id::text FROM member WHERE club_id = $1 AND handle = 'cat'`, a)[0]
	looseWorks := func() []string {
		t.Helper()
		return texts(t, db, `SELECT count(*)::text FROM shelf_works WHERE source_id = $1`, loose)
	}
	if _, err := inB.ShelfAddBookSelect(ctx, ql.ShelfAddBookSelectParams{Code: "B1", ID: loose}); err == nil {
		t.Fatal("another club's update of a shelf returned no error")
	}
	if got := looseWorks(); !reflect.DeepEqual(got, []string{"0"}) {
		t.Fatalf("works after a failed update: %v", got)
	}
	added, err := inA.ShelfAddBookSelect(ctx, ql.ShelfAddBookSelectParams{Code: "B1", ID: loose})
	if err != nil || added.Shelf.Title != "Loose" || added.Shelf.Curator != nil || added.Book.Code != "B1" ||
		added.Book.Pages == nil || *added.Book.Pages != 300 {
		t.Fatalf("add book select: %+v %v", added, err)
	}
	if got := looseWorks(); !reflect.DeepEqual(got, []string{"1"}) {
		t.Fatalf("works after add book select: %v", got)
	}
	added, err = inA.ShelfAddBookSelect(ctx, ql.ShelfAddBookSelectParams{Code: "B1", ID: classics})
	if err != nil || added.Shelf.Curator == nil || added.Shelf.Curator.ID != catID {
		t.Fatalf("add book select with a curator: %+v %v", added, err)
	}
	fay, err := inA.MemberUpsertAll(ctx, ql.MemberUpsertAllParams{Handle: "fay"})
	if err != nil || fay.Handle != "fay" || fay.Points != 0 || fay.Club != (ql.MemberUpsertAllClub{ID: a, Name: "A"}) ||
		len(fay.Follows) != 0 {
		t.Fatalf("upsert all (insert): %+v %v", fay, err)
	}
	annAll, err := inA.MemberUpsertAll(ctx, ql.MemberUpsertAllParams{Handle: "ann"})
	if err != nil || annAll.ID != ann || annAll.Points != 11 || len(annAll.Follows) != 2 {
		t.Fatalf("upsert all (update): %+v %v", annAll, err)
	}
}
