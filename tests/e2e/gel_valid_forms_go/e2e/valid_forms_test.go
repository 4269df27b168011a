// End-to-end test of the generated Go runner of tests/cases/gel_valid_forms (see
// test_gel_valid_forms_e2e.py): valid Gel that schemac once refused with a wrong error, run on
// pgx v5 against the database in $DATABASE_URL. The test empties the tables first.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gv "schemactest/gelvalidforms"
)

func ptr[T any](v T) *T { return &v }

func TestValidForms(t *testing.T) {
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
	_, err = db.Exec(ctx, `TRUNCATE person, book, tag CASCADE`)
	must(err)
	r := gv.New(db)
	for _, name := range []string{"ann", "bob", "cy"} {
		_, err = r.Query.AddPerson(ctx, gv.AddPersonParams{Name: name})
		must(err)
	}
	for _, title := range []string{"Dune", "Emma"} {
		_, err = r.Query.AddBook(ctx, gv.AddBookParams{Title: title, Author: "ann"})
		must(err)
	}

	// Set functions of sets of values.
	stats, err := r.Query.ValueSetStats(ctx, gv.ValueSetStatsParams{Xs: []int64{5, 7}, A: "x", Flags: []bool{true, false}})
	must(err)
	if !reflect.DeepEqual(stats, gv.ValueSetStatsRow{N: 4, Total: 12, Lowest: ptr(int64(5)), Highest: ptr(int64(7)),
		Mean: 3.75, Words: []string{"x"}, SomeTrue: true, AllTrue: false}) {
		t.Fatalf("value_set_stats: %+v", stats)
	}
	stats, err = r.Query.ValueSetStats(ctx, gv.ValueSetStatsParams{Xs: []int64{}, A: "x", B: ptr("y"), Flags: []bool{}})
	must(err)
	if !reflect.DeepEqual(stats, gv.ValueSetStatsRow{N: 2, Total: 0, Highest: ptr(int64(3)), Mean: 1.5,
		Words: []string{"x", "y"}, SomeTrue: false, AllTrue: true}) {
		t.Fatalf("value_set_stats of none: %+v", stats)
	}
	ws, err := r.Query.WithValueSet(ctx, gv.WithValueSetParams{T: ptr("z")})
	must(err)
	if !reflect.DeepEqual(ws, gv.WithValueSetRow{N: 3, Total: 6, Values: []int64{1, 2, 3}, HasT: 1}) {
		t.Fatalf("with_value_set: %+v", ws)
	}
	named, err := r.Query.PeopleNamed(ctx, gv.PeopleNamedParams{More: []string{"cy"}})
	must(err)
	if !reflect.DeepEqual(named, []gv.PeopleNamedRow{{Name: "ann"}, {Name: "bob"}, {Name: "cy"}}) {
		t.Fatalf("people_named: %+v", named)
	}

	// json ++ json, bytes ++ bytes.
	j, err := r.Query.JSONConcat(ctx, gv.JSONConcatParams{A: json.RawMessage(`{"a": 1, "b": 1}`), B: json.RawMessage(`{"b": 2}`)})
	must(err)
	var obj map[string]int
	must(json.Unmarshal(j, &obj))
	if !reflect.DeepEqual(obj, map[string]int{"a": 1, "b": 2}) {
		t.Fatalf("json ++: %s", j)
	}
	j, err = r.Query.JSONConcat(ctx, gv.JSONConcatParams{A: json.RawMessage(`"ab"`), B: json.RawMessage(`"cd"`)})
	if err != nil || string(j) != `"abcd"` {
		t.Fatalf("json strings ++: %s, %v", j, err)
	}
	_, err = r.Query.JSONConcat(ctx, gv.JSONConcatParams{A: json.RawMessage(`[1]`), B: json.RawMessage(`{"b": 2}`)})
	if err == nil || !strings.Contains(err.Error(), "invalid JSON values for ++ operator") {
		t.Fatalf("json array ++ object: %v", err)
	}
	b, err := r.Query.BytesConcat(ctx, gv.BytesConcatParams{A: []byte("ab"), B: []byte{0, 255}})
	if err != nil || !reflect.DeepEqual(b, []byte{97, 98, 0, 255}) {
		t.Fatalf("bytes ++: %v, %v", b, err)
	}

	// Type aliases in with.
	books, err := r.Query.BookByTitle(ctx, gv.BookByTitleParams{T: "Dune"})
	must(err)
	if len(books) != 1 || books[0].Title != "Dune" || books[0].Author == nil || books[0].Author.Name != "ann" {
		t.Fatalf("book_by_title: %+v", books)
	}
	people, err := r.Query.PeopleBooks(ctx)
	must(err)
	if !reflect.DeepEqual(people, []gv.PeopleBooksRow{{Name: "ann", Books: 2, AllBooks: 2}, {Name: "bob", AllBooks: 2},
		{Name: "cy", AllBooks: 2}}) {
		t.Fatalf("people_books: %+v", people)
	}

	// Positional parameters: Arg0, Arg1.
	pos, err := r.Query.Positional(ctx, gv.PositionalParams{Arg0: "bob", Arg1: ptr("cy")})
	must(err)
	if !reflect.DeepEqual(pos, []gv.PositionalRow{{Name: "bob"}, {Name: "cy"}}) {
		t.Fatalf("positional: %+v", pos)
	}

	// A multi property from array_unpack, and += of a union.
	_, err = r.Query.AddNicknamed(ctx, gv.AddNicknamedParams{Name: "dee", Nicknames: []string{"d", "dd", "d"}})
	must(err)
	nicks, err := r.Query.PersonNicknames(ctx, gv.PersonNicknamesParams{Name: "dee"})
	if err != nil || len(nicks) != 1 || !reflect.DeepEqual(nicks[0].Nicknames, []string{"d", "dd", "d"}) {
		t.Fatalf("person_nicknames: %+v, %v", nicks, err)
	}
	_, err = r.Query.AddNicknamed(ctx, gv.AddNicknamedParams{Name: "eve", Nicknames: []string{}})
	must(err)
	_, err = r.Query.AddNicknames(ctx, gv.AddNicknamesParams{Name: "eve", More: []string{"e"}})
	must(err)
	nicks, err = r.Query.PersonNicknames(ctx, gv.PersonNicknamesParams{Name: "eve"})
	if err != nil || len(nicks) != 1 || !reflect.DeepEqual(nicks[0].Nicknames, []string{"the", "e"}) {
		t.Fatalf("person_nicknames after +=: %+v, %v", nicks, err)
	}

	// assert_distinct, assert_exists, assert_single: Gel's errors, typed, with Gel's message or
	// the message := given.
	card := func(err error, fn, message string) bool {
		var e *gv.CardinalityViolationError
		return errors.Is(err, gv.ErrCardinalityViolation) && errors.As(err, &e) && e.Function == fn && e.Message == message
	}
	distinct := func(err error, message string) bool {
		var e *gv.DistinctViolationError
		return errors.Is(err, gv.ErrDistinctViolation) && errors.As(err, &e) && e.Message == message
	}
	values, err := r.Query.DistinctValues(ctx, gv.DistinctValuesParams{Xs: []int64{3, 1, 2}})
	if err != nil || !reflect.DeepEqual(values, []int64{3, 1, 2}) {
		t.Fatalf("distinct_values: %v, %v", values, err)
	}
	if _, err = r.Query.DistinctValues(ctx, gv.DistinctValuesParams{Xs: []int64{3, 1, 3}}); !distinct(err,
		"assert_distinct violation: expression returned a set with duplicate elements") {
		t.Fatalf("distinct_values of 3 twice: %v", err)
	}
	if _, err = r.Query.DistinctNames(ctx, gv.DistinctNamesParams{Xs: []string{"b", "a"}}); !distinct(err, "names repeat") {
		t.Fatalf("distinct_names: %v", err)
	}
	if _, err = r.Query.DistinctNicknames(ctx, gv.DistinctNicknamesParams{Name: "dee"}); !distinct(err,
		"assert_distinct violation: expression returned a set with duplicate elements") {
		t.Fatalf("distinct_nicknames: %v", err)
	}
	_, err = r.Query.AddBook(ctx, gv.AddBookParams{Title: "Dune", Author: "ann"})
	must(err)
	titled, err := r.Query.BooksTitled(ctx, gv.BooksTitledParams{T: "Dune"})
	if err != nil || len(titled) != 2 {
		t.Fatalf("books_titled: %+v, %v", titled, err)
	}
	if _, err = r.Query.BooksTitled(ctx, gv.BooksTitledParams{T: "Ulysses"}); !card(err, "assert_exists",
		"assert_exists violation: expression returned an empty set") {
		t.Fatalf("books_titled of none: %v", err)
	}
	if _, err = r.Query.BooksTitledOrFail(ctx, gv.BooksTitledOrFailParams{T: "Ulysses"}); !card(err, "assert_exists", "no such book") {
		t.Fatalf("books_titled_or_fail: %v", err)
	}
	if b, err := r.Query.OnlyBook(ctx, gv.OnlyBookParams{T: "Emma"}); err != nil || b == nil || b.Title != "Emma" {
		t.Fatalf("only_book: %+v, %v", b, err)
	}
	if _, err = r.Query.OnlyBook(ctx, gv.OnlyBookParams{T: "Dune"}); !card(err, "assert_single", "several books") {
		t.Fatalf("only_book of two: %v", err)
	}
	if s, err := r.Query.MustStr(ctx, gv.MustStrParams{S: ptr("x")}); err != nil || s != "x" {
		t.Fatalf("must_str: %v, %v", s, err)
	}
	if _, err = r.Query.MustStr(ctx, gv.MustStrParams{}); !card(err, "assert_exists", "no s") {
		t.Fatalf("must_str of none: %v", err)
	}
	if _, err = r.Query.AddBookOrFail(ctx, gv.AddBookOrFailParams{Title: "Ulysses", Author: "zed"}); !card(err, "assert_exists", "no such author") {
		t.Fatalf("add_book_or_fail: %v", err)
	}
	_, err = r.Query.AddBookOrFail(ctx, gv.AddBookOrFailParams{Title: "Ulysses", Author: "bob"})
	must(err)

	// A bulk get-or-insert repeating a label: SQLSTATE 21000 too, but the driver's error, no
	// assertion's.
	if tags, err := r.Query.TagsLabelled(ctx, gv.TagsLabelledParams{Labels: []string{"x", "y"}}); err != nil || len(tags) != 2 {
		t.Fatalf("tags_labelled: %v, %v", tags, err)
	}
	if _, err = r.Query.TagsLabelled(ctx, gv.TagsLabelledParams{Labels: []string{"z", "z"}}); err == nil ||
		errors.Is(err, gv.ErrCardinalityViolation) || !strings.Contains(err.Error(), "cannot affect row a second time") {
		t.Fatalf("tags_labelled of z twice: %v", err)
	}
}
