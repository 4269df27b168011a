// End-to-end test of the generated Go runner of tests/cases/fts_search (see
// test_fts_search_e2e.py): Gel's full-text search (https://docs.geldata.com/reference/stdlib/fts)
// through pgx v5 against the database in $DATABASE_URL. The items are the docs' example; their
// scores are the ones the docs print. The test empties the tables first, so it can run once per
// Go toolchain.
package e2e

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	fs "schemactest/ftssearch"
)

type scored struct {
	Name  string
	Score float32
}

func TestFtsSearch(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{
		`TRUNCATE item, note, tag, pinboard CASCADE`,
		`INSERT INTO item (name, description) VALUES
		 ('Canned corn', NULL), ('Candy corn', 'A great Halloween treat'), ('Sweet', 'Treat made with corn sugar')`,
		`INSERT INTO tag (name) VALUES ('garden'), ('food')`,
		`INSERT INTO note (title, body) VALUES
		 ('Garden notes', 'Tomatoes need sun: water the tomatoes daily'), ('Kitchen', 'Tomato soup with basil'),
		 ('Sun and rain', NULL), ('Travel', 'Trains in the rain')`,
		`INSERT INTO note_tags (source_id, target_id)
		 SELECT n.id, t.id FROM note n, tag t
		 WHERE (n.title, t.name) IN (('Garden notes', 'garden'), ('Kitchen', 'food'), ('Kitchen', 'garden'))`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	q := fs.New(db).Query

	search := func(query string) []scored {
		rows, err := q.SearchItems(ctx, fs.SearchItemsParams{Q: query})
		if err != nil {
			t.Fatalf("SearchItems(%q): %v", query, err)
		}
		out := []scored{}
		for _, r := range rows {
			out = append(out, scored{r.Name, r.Score})
		}
		return out
	}
	expect := func(what string, got, want []scored) {
		t.Helper()
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s = %+v, want %+v", what, got, want)
		}
	}

	// Plain terms are optional (ORed); the best match first: the docs' scores.
	expect("corn treat", search("corn treat"),
		[]scored{{"Candy corn", 0.4559453}, {"Canned corn", 0.30396354}, {"Sweet", 0.30396354}})
	if n, err := q.CountItems(ctx, fs.CountItemsParams{Q: "corn treat"}); err != nil || n != 3 {
		t.Fatalf("CountItems = %d, %v", n, err)
	}

	// A quoted phrase must appear; AND makes terms required; ! or - excludes.
	expect(`"corn sugar"`, search(`"corn sugar"`), []scored{{"Sweet", 0.4955161}})
	expect("sweet AND treat", search("sweet AND treat"), []scored{{"Sweet", 0.70076555}})
	expect("!treat", search("!treat"), []scored{{"Canned corn", 0}})
	if got := search("corn -treat"); len(got) != 1 || got[0].Name != "Canned corn" {
		t.Fatalf("corn -treat = %+v", got)
	}
	expect("zebra", search("zebra"), []scored{})

	// weights := [0.2, 1] ranks descriptions above names; nil: the defaults; [0, 1] and a filter.
	weighted, err := q.SearchItemsWeighted(ctx, fs.SearchItemsWeightedParams{Q: "corn treat", Weights: []float64{0.2, 1}})
	if err != nil {
		t.Fatal(err)
	}
	got := []scored{}
	for _, r := range weighted {
		got = append(got, scored{r.Name, r.Score})
	}
	expect("weights [0.2, 1]", got, []scored{{"Sweet", 0.6079271}, {"Candy corn", 0.36475626}, {"Canned corn", 0.06079271}})
	defaults, err := q.SearchItemsWeighted(ctx, fs.SearchItemsWeightedParams{Q: "corn treat"})
	if err != nil || len(defaults) != 3 || defaults[0].Name != "Candy corn" || defaults[0].Score != 0.4559453 {
		t.Fatalf("SearchItemsWeighted(nil) = %+v, %v", defaults, err)
	}
	ignoring, err := q.SearchItemsIgnoringNames(ctx, fs.SearchItemsIgnoringNamesParams{Q: "corn treat"})
	if err != nil || len(ignoring) != 2 || ignoring[0].Name != "Sweet" || ignoring[0].Score != 0.6079271 ||
		ignoring[1].Name != "Candy corn" || ignoring[1].Score != 0.30396354 {
		t.Fatalf("SearchItemsIgnoringNames = %+v, %v", ignoring, err)
	}

	// Unweighted parts are category A: a title and a body match alike; the search's own order
	// and limit; a shape with a link.
	rain, err := q.TopNotes(ctx, fs.TopNotesParams{Q: "rain", N: 5})
	if err != nil || len(rain) != 2 || rain[0].Title != "Sun and rain" || rain[1].Title != "Travel" ||
		rain[0].Score != rain[1].Score {
		t.Fatalf("TopNotes(rain) = %+v, %v", rain, err)
	}
	tomato, err := q.TopNotes(ctx, fs.TopNotesParams{Q: "tomato", N: 1})
	if err != nil || len(tomato) != 1 || tomato[0].Title != "Garden notes" ||
		!reflect.DeepEqual(tomato[0].Tags, []fs.TopNotesTags{{Name: "garden"}}) {
		t.Fatalf("TopNotes(tomato) = %+v, %v", tomato, err)
	}
	matching, err := q.MatchingNotes(ctx, fs.MatchingNotesParams{Q: "tomatoes"})
	if err != nil || len(matching) != 2 || matching[0].Title != "Garden notes" || matching[1].Title != "Kitchen" {
		t.Fatalf("MatchingNotes = %+v, %v", matching, err)
	}

	// The boards holding a matching note: notes.<notes[is Board] (Board abstract, Pinboard its
	// one concrete subtype), distinct, filtered, ordered and paged; counted. any(.tags in t).
	for _, sql := range []string{
		`INSERT INTO pinboard (name) VALUES ('garden board'), ('archive'), ('travel board'), ('empty')`,
		`INSERT INTO pinboard_notes (source_id, target_id)
		 SELECT b.id, n.id FROM pinboard b, note n
		 WHERE (b.name, n.title) IN (('garden board', 'Garden notes'), ('garden board', 'Kitchen'),
		                             ('archive', 'Kitchen'), ('travel board', 'Travel'))`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	boards, err := q.BoardsOfMatches(ctx, fs.BoardsOfMatchesParams{Q: "tomato", Offset: 0, Limit: 10})
	if err != nil || len(boards) != 1 || boards[0].Name != "garden board" ||
		!reflect.DeepEqual(boards[0].Notes, []fs.BoardsOfMatchesNotes{{Title: "Garden notes"}, {Title: "Kitchen"}}) {
		t.Fatalf("BoardsOfMatches(tomato) = %+v, %v", boards, err)
	}
	boards, err = q.BoardsOfMatches(ctx, fs.BoardsOfMatchesParams{Q: "tomato rain", Offset: 1, Limit: 1})
	if err != nil || len(boards) != 1 || boards[0].Name != "travel board" {
		t.Fatalf("BoardsOfMatches(tomato rain, 1, 1) = %+v, %v", boards, err)
	}
	for query, want := range map[string]int64{"tomato rain": 2, "basil": 1, "zebra": 0} {
		if n, err := q.CountBoardsOfMatches(ctx, fs.CountBoardsOfMatchesParams{Q: query}); err != nil || n != want {
			t.Fatalf("CountBoardsOfMatches(%q) = %d, %v; want %d", query, n, err, want)
		}
	}
	tagged, err := q.NotesTagged(ctx, fs.NotesTaggedParams{Names: []string{"food", "nothing"}})
	if err != nil || len(tagged) != 1 || tagged[0].Title != "Kitchen" {
		t.Fatalf("NotesTagged = %+v, %v", tagged, err)
	}
}
