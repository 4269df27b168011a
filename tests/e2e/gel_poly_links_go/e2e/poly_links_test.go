// End-to-end test of the generated Go runner of tests/cases/gel_poly_links (see
// test_gel_poly_links_e2e.py): polymorphic links written through sub-selects of a subtype and
// read through shapes (the common properties, [is T] for one subtype's), with pgx v5 against
// the database in $DATABASE_URL. The test empties the tables first.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gp "schemactest/gelpolylinks"
)

func ptr[T any](v T) *T { return &v }

func TestPolymorphicLinks(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(ctx, `TRUNCATE movie, show, review, watchlist, badge, gold_badge CASCADE`)
	must(err)
	r := gp.New(db)
	alien, err := r.Query.AddMovie(ctx, gp.AddMovieParams{Title: "Alien", Year: ptr(int32(1979))})
	must(err)
	heat, err := r.Query.AddMovie(ctx, gp.AddMovieParams{Title: "Heat"})
	must(err)
	lost, err := r.Query.AddShow(ctx, gp.AddShowParams{Title: "Lost", Seasons: ptr(int32(6))})
	must(err)

	_, err = r.Query.ReviewMovie(ctx, gp.ReviewMovieParams{Body: "scary", Movie: alien.ID})
	must(err)
	_, err = r.Query.ReviewShow(ctx, gp.ReviewShowParams{Body: "long", Show: lost.ID})
	must(err)
	_, err = r.Query.ReviewMovie(ctx, gp.ReviewMovieParams{Body: "wrong type", Movie: lost.ID})
	if !errors.Is(err, gp.ErrForeignKeyViolation) {
		t.Fatalf("a show's id as a movie: %v", err)
	}
	reviews, err := r.Query.Reviews(ctx)
	must(err)
	want := []gp.ReviewsRow{
		{Body: "long", Subject: gp.ReviewsSubject{ID: lost.ID, Title: "Lost"}},
		{Body: "scary", Subject: gp.ReviewsSubject{ID: alien.ID, Title: "Alien"}},
	}
	if !reflect.DeepEqual(reviews, want) {
		t.Fatalf("reviews: %+v", reviews)
	}
	mine, err := r.Query.AddWatchlist(ctx, gp.AddWatchlistParams{Name: "mine"})
	must(err)
	_, err = r.Query.AddWatchlist(ctx, gp.AddWatchlistParams{Name: "empty"})
	must(err)
	_, err = r.Query.FavourMovie(ctx, gp.FavourMovieParams{ID: mine.ID, Movie: heat.ID})
	must(err)
	_, err = db.Exec(ctx, `INSERT INTO watchlist_items (source_id, target_id, target_movie_id, added)
		VALUES ($1, $2, $2, '2026-01-02T00:00:00Z')`, mine.ID, alien.ID)
	must(err)
	_, err = db.Exec(ctx, `INSERT INTO watchlist_items (source_id, target_id, target_show_id) VALUES ($1, $2, $2)`,
		mine.ID, lost.ID)
	must(err)

	lists, err := r.Query.Watchlists(ctx)
	must(err)
	if len(lists) != 2 || lists[0].Name != "empty" || lists[0].Favourite != nil || lists[0].FavMovie != nil ||
		len(lists[0].Items) != 0 || len(lists[0].Shows) != 0 {
		t.Fatalf("watchlists: %+v", lists)
	}
	m := lists[1]
	if m.Favourite == nil || m.Favourite.Title != "Heat" || m.FavMovie == nil || m.FavMovie.ReleaseYear != nil ||
		len(m.Items) != 2 || m.Items[0].Title != "Alien" || m.Items[0].Added == nil || m.Items[1].Title != "Lost" ||
		m.Items[1].Added != nil || !reflect.DeepEqual(m.Shows, []gp.WatchlistsShows{{Title: "Lost", Seasons: ptr(int32(6))}}) {
		t.Fatalf("mine: %+v", m)
	}
	_, err = r.Query.FavourShow(ctx, gp.FavourShowParams{ID: mine.ID, Show: lost.ID})
	must(err)
	lists, err = r.Query.Watchlists(ctx)
	must(err)
	if m = lists[1]; m.Favourite == nil || m.Favourite.Title != "Lost" || m.FavMovie != nil {
		t.Fatalf("after favouring the show: %+v", m)
	}

	_, err = r.Query.DeleteShow(ctx, gp.DeleteShowParams{ID: lost.ID})
	must(err)
	reviews, err = r.Query.Reviews(ctx)
	must(err)
	if len(reviews) != 1 || reviews[0].Body != "scary" {
		t.Fatalf("reviews after the show: %+v", reviews)
	}
	lists, err = r.Query.Watchlists(ctx)
	must(err)
	if m = lists[1]; m.Favourite != nil || len(m.Items) != 1 || m.Items[0].Title != "Alien" || len(m.Shows) != 0 {
		t.Fatalf("after deleting the show: %+v", m)
	}

	// A nested insert and a with-bound one set the column of their subtype (a loop over
	// constants links two reviews to one new show); backlinks read through the link.
	fresh, err := r.Query.ReviewNewMovie(ctx, gp.ReviewNewMovieParams{Body: "fresh", Title: "Up"})
	must(err)
	twice, err := r.Query.ReviewNewShowTwice(ctx, gp.ReviewNewShowTwiceParams{Title: "Dark"})
	must(err)
	if len(twice) != 2 {
		t.Fatalf("reviews of the new show: %+v", twice)
	}
	var shows int
	must(db.QueryRow(ctx, `SELECT count(*) FROM review JOIN show ON show.id = review.subject_show_id
		WHERE show.title = 'Dark'`).Scan(&shows))
	if shows != 2 {
		t.Fatalf("reviews linked to Dark: %d", shows)
	}
	byMovie, err := r.Query.MovieReviews(ctx)
	must(err)
	if len(byMovie) != 3 || byMovie[0].Title != "Alien" || len(byMovie[1].Reviews) != 0 ||
		!reflect.DeepEqual(byMovie[2].Reviews, []gp.MovieReviewsReviews{{Body: "fresh"}}) ||
		len(byMovie[2].ReviewIDs) != 1 || byMovie[2].ReviewIDs[0].ID != fresh.ID {
		t.Fatalf("movie reviews: %+v", byMovie)
	}

	// Queries on an abstract type: the objects of every subtype, [is T] fragments, the
	// computeds the abstract type declares, a backlink of an abstract type.
	var dark string
	must(db.QueryRow(ctx, `SELECT id::text FROM show WHERE title = 'Dark'`).Scan(&dark))
	_, err = r.Query.AddTip(ctx, gp.AddTipParams{Body: "a tip", Movie: alien.ID})
	must(err)
	_, err = r.Query.AddWarning(ctx, gp.AddWarningParams{Body: "a warning", Level: 3, Show: dark})
	must(err)
	contents, err := r.Query.Contents(ctx, gp.ContentsParams{Skip: "Heat", N: 10})
	must(err)
	if len(contents) != 3 || contents[0].Title != "Up" || contents[1].Kind != "default::Show" ||
		contents[1].Shout != "DARK" || contents[2].ReleaseYear == nil || *contents[2].ReleaseYear != 1979 ||
		contents[2].Seasons != nil || len(contents[2].NoteIDs) != 1 || len(contents[0].NoteIDs) != 0 {
		t.Fatalf("contents: %+v", contents)
	}
	// A concrete type other types extend: its select reads the subtypes' objects too.
	_, err = db.Exec(ctx, "INSERT INTO badge (label) VALUES ('plain')")
	must(err)
	_, err = db.Exec(ctx, "INSERT INTO gold_badge (label, karat) VALUES ('gold', 18)")
	must(err)
	badges, err := r.Query.Badges(ctx)
	must(err)
	if len(badges) != 2 || badges[0].Label != "gold" || badges[0].Karat == nil || *badges[0].Karat != 18 ||
		badges[1].Label != "plain" || badges[1].Karat != nil {
		t.Fatalf("badges: %+v", badges)
	}
	notes, err := r.Query.Notes(ctx)
	must(err)
	if !reflect.DeepEqual(notes, []gp.NotesRow{
		{Kind: "default::Tip", Body: "a tip", About: gp.NotesAbout{Title: "Alien", Kind: "default::Movie", Shout: "ALIEN"}},
		{Kind: "default::Warning", Body: "a warning", Level: ptr(int16(3)), About: gp.NotesAbout{Title: "Dark", Kind: "default::Show", Shout: "DARK"}},
	}) {
		t.Fatalf("notes: %+v", notes)
	}
	one, err := r.Query.ContentByID(ctx, gp.ContentByIDParams{ID: dark})
	if err != nil || one == nil || *one != (gp.ContentByIDRow{Title: "Dark", Kind: "default::Show"}) {
		t.Fatalf("content_by_id: %+v, %v", one, err)
	}
	withNotes, err := r.Query.ContentNotes(ctx)
	must(err)
	if len(withNotes) != 4 || !reflect.DeepEqual(withNotes[0].Notes, []gp.ContentNotesNotes{{Body: "a tip", Kind: "default::Tip"}}) ||
		len(withNotes[1].Notes) != 0 {
		t.Fatalf("content_notes: %+v", withNotes)
	}
}
