// End-to-end test of the generated Go runner of tests/cases/select_forms (see
// test_select_forms_e2e.py): selects of single values and of free objects, through pgx v5
// against the database in $DATABASE_URL. The test empties the table first, so it can run once
// per Go toolchain.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	sf "schemactest/selectforms"
)

func ptr[T any](v T) *T { return &v }

func TestSelectForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{
		`TRUNCATE "user", blog_note CASCADE`,
		`INSERT INTO "user" (name, email, active) VALUES ('Ann', 'ann@example.com', true), ('Bob', NULL, false), ('Cy', 'cy@example.com', true), ('Dee', NULL, true)`,
		`INSERT INTO user_friends (source_id, target_id) SELECT a.id, f.id FROM "user" a, "user" f WHERE a.name = 'Ann' AND f.name <> 'Ann'`,
		`INSERT INTO post (title, published, author_id) SELECT t, p, id FROM "user", (VALUES ('b-post', true), ('a-post', true), ('draft', false)) AS v(t, p) WHERE name = 'Ann'`,
		`INSERT INTO blog_note (body) VALUES ('z'), ('a')`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	q := sf.New(db).Query

	// A single value comes back as itself: int64, string, *string, bool.
	var one int64
	if one, err = q.Ping(ctx); err != nil || one != 1 {
		t.Fatalf("Ping = %v, %v", one, err)
	}
	if n, err := q.CountUsers(ctx); err != nil || n != 4 {
		t.Fatalf("CountUsers = %v, %v", n, err)
	}
	if n, err := q.CountActive(ctx); err != nil || n != 3 {
		t.Fatalf("CountActive = %v, %v", n, err)
	}
	if s, err := q.Echo(ctx, sf.EchoParams{Text: "hé"}); err != nil || s != "hé" {
		t.Fatalf("Echo = %q, %v", s, err)
	}
	var maybe *string
	if maybe, err = q.MaybeEcho(ctx, sf.MaybeEchoParams{Text: ptr("x")}); err != nil || maybe == nil || *maybe != "x" {
		t.Fatalf("MaybeEcho(x) = %v, %v", maybe, err)
	}
	if maybe, err = q.MaybeEcho(ctx, sf.MaybeEchoParams{}); err != nil || maybe != nil {
		t.Fatalf("MaybeEcho(nil) = %v, %v", maybe, err)
	}
	if maybe, err = q.Nothing(ctx); err != nil || maybe != nil {
		t.Fatalf("Nothing = %v, %v", maybe, err)
	}
	if b, err := q.EmailTaken(ctx, sf.EmailTakenParams{Email: "ann@example.com"}); err != nil || !b {
		t.Fatalf("EmailTaken(ann) = %v, %v", b, err)
	}
	if b, err := q.EmailTaken(ctx, sf.EmailTakenParams{Email: "nobody@example.com"}); err != nil || b {
		t.Fatalf("EmailTaken(nobody) = %v, %v", b, err)
	}

	// A free object is one row of its fields.
	before := time.Now()
	st, err := q.Stats(ctx, sf.StatsParams{Prefix: "users"})
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 4 || st.Active != 3 || st.Label != "users!" || st.Half != 0.5 || st.Missing != nil {
		t.Fatalf("Stats = %+v", st)
	}
	if st.At.Before(before.Add(-5 * time.Second)) {
		t.Fatalf("Stats.At = %v", st.At)
	}
	nc, err := q.NameCheck(ctx, sf.NameCheckParams{Name: "Bob"})
	if err != nil || !nc.Taken || nc.Shout != "BOB" {
		t.Fatalf("NameCheck(Bob) = %+v, %v", nc, err)
	}
	nc, err = q.NameCheck(ctx, sf.NameCheckParams{Name: "Eve"})
	if err != nil || nc.Taken || nc.Shout != "EVE" {
		t.Fatalf("NameCheck(Eve) = %+v, %v", nc, err)
	}

	// with u := (select User filter .active) select u { ... } filter ... order by ...
	names := func(rows []sf.ActiveNamedRow) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r.Name)
		}
		return out
	}
	an, err := q.ActiveNamed(ctx, sf.ActiveNamedParams{Pattern: "%"})
	if err != nil || !reflect.DeepEqual(names(an), []string{"Ann", "Cy", "Dee"}) {
		t.Fatalf("ActiveNamed = %+v, %v", an, err)
	}
	fu, err := q.FirstUsers(ctx)
	if err != nil || len(fu) != 2 || fu[0].Name != "Ann" || fu[1].Name != "Bob" {
		t.Fatalf("FirstUsers = %+v, %v", fu, err)
	}
	as, err := q.ActiveStats(ctx)
	if err != nil || as.N != 3 || !as.AnyActive {
		t.Fatalf("ActiveStats = %+v, %v", as, err)
	}
	notes, err := q.Notes(ctx)
	if err != nil || len(notes) != 2 || notes[0].Body != "a" || notes[1].Body != "z" {
		t.Fatalf("Notes = %+v, %v", notes, err)
	}

	// Nested shapes with filter / order by / limit.
	up, err := q.UserPosts(ctx, sf.UserPostsParams{Name: "Ann", N: 1})
	if err != nil || up == nil {
		t.Fatalf("UserPosts = %+v, %v", up, err)
	}
	got, _ := json.Marshal(up)
	if string(got) != `{"name":"Ann","friends":[{"name":"Dee"}],"posts":[{"title":"a-post"},{"title":"b-post"}]}` {
		t.Fatalf("UserPosts(Ann, 1) = %s", got)
	}
	up, err = q.UserPosts(ctx, sf.UserPostsParams{Name: "Ann", N: 5})
	got, _ = json.Marshal(up)
	if err != nil || string(got) != `{"name":"Ann","friends":[{"name":"Dee"},{"name":"Cy"}],"posts":[{"title":"a-post"},{"title":"b-post"}]}` {
		t.Fatalf("UserPosts(Ann, 5) = %s, %v", got, err)
	}
	up, err = q.UserPosts(ctx, sf.UserPostsParams{Name: "Bob", N: 5})
	got, _ = json.Marshal(up)
	if err != nil || string(got) != `{"name":"Bob","friends":[],"posts":[]}` {
		t.Fatalf("UserPosts(Bob, 5) = %s, %v", got, err)
	}

	// Free objects holding objects; select (select ...).
	ov, err := q.Overview(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var users []string
	for _, u := range ov.Users {
		users = append(users, u.Name)
	}
	sort.Strings(users)
	ov.Users = nil
	got, _ = json.Marshal(ov)
	if !reflect.DeepEqual(users, []string{"Ann", "Cy", "Dee"}) || string(got) != `{"users":null,"ann":{"name":"Ann","posts":[{"title":"a-post"},{"title":"b-post"},{"title":"draft"}]},"first_active":{"name":"Ann"},"published":[{"title":"a-post"},{"title":"b-post"}],"drafts":"1"}` {
		t.Fatalf("Overview = %v %s", users, got)
	}
	ws, err := q.WrappedSelect(ctx)
	if err != nil || len(ws) != 2 || ws[0].Name != "Ann" || ws[1].Name != "Bob" {
		t.Fatalf("WrappedSelect = %+v, %v", ws, err)
	}

	// x in array_unpack(...), json_get, a with name inside a sub-select.
	un, err := q.UsersNamed(ctx, sf.UsersNamedParams{Names: []string{"Cy", "Ann", "Zed"}})
	if err != nil || len(un) != 2 || un[0].Name != "Ann" || un[1].Name != "Cy" {
		t.Fatalf("UsersNamed = %+v, %v", un, err)
	}
	unn, err := q.UsersNotNamed(ctx, sf.UsersNotNamedParams{Names: []string{}})
	if err != nil || len(unn) != 4 {
		t.Fatalf("UsersNotNamed([]) = %+v, %v", unn, err)
	}
	// A nil slice of a required array parameter is the empty array (Gel has no NULL arrays):
	// name <> ALL (NULL) would select no user.
	unn, err = q.UsersNotNamed(ctx, sf.UsersNotNamedParams{})
	if err != nil || len(unn) != 4 {
		t.Fatalf("UsersNotNamed(nil) = %+v, %v", unn, err)
	}
	jf, err := q.JSONFields(ctx, sf.JSONFieldsParams{Payload: json.RawMessage(`{"post": {"title": "Hi"}, "tags": [10, 20]}`)})
	if err != nil || jf.Title == nil || *jf.Title != "Hi" || jf.Second == nil || *jf.Second != 20 || jf.Missing != nil {
		t.Fatalf("JSONFields = %+v, %v", jf, err)
	}
	jf, err = q.JSONFields(ctx, sf.JSONFieldsParams{Payload: json.RawMessage(`{"tags": [10]}`)})
	if err != nil || jf.Title != nil || jf.Second != nil || jf.Missing != nil {
		t.Fatalf("JSONFields(empty) = %+v, %v", jf, err)
	}
	ub, err := q.UserByName(ctx, sf.UserByNameParams{Name: "Ann"})
	if err != nil || ub == nil || ub.Name != "Ann" || ub.Email == nil || *ub.Email != "ann@example.com" {
		t.Fatalf("UserByName = %+v, %v", ub, err)
	}
	if ub, err = q.UserByName(ctx, sf.UserByNameParams{Name: "Zed"}); err != nil || ub != nil {
		t.Fatalf("UserByName(Zed) = %+v, %v", ub, err)
	}

	// assert_single / assert_exists: several rows fail with Gel's CardinalityViolationError.
	ou, err := q.OnlyUser(ctx, sf.OnlyUserParams{Pattern: "ann@%"})
	if err != nil || ou == nil || ou.Name != "Ann" {
		t.Fatalf("OnlyUser(ann) = %+v, %v", ou, err)
	}
	if ou, err = q.OnlyUser(ctx, sf.OnlyUserParams{Pattern: "nobody@%"}); err != nil || ou != nil {
		t.Fatalf("OnlyUser(nobody) = %+v, %v", ou, err)
	}
	if _, err = q.OnlyUser(ctx, sf.OnlyUserParams{Pattern: "%@example.com"}); !errors.Is(err, sf.ErrCardinalityViolation) ||
		err.Error() != "assert_single violation: more than one element returned by an expression" {
		t.Fatalf("OnlyUser(several) err = %v", err)
	}
	if _, err = q.OnlyField(ctx, sf.OnlyFieldParams{Pattern: "%"}); !errors.Is(err, sf.ErrCardinalityViolation) {
		t.Fatalf("OnlyField(several) err = %v", err)
	}
	of, err := q.OnlyField(ctx, sf.OnlyFieldParams{Pattern: "cy@%"})
	if err != nil || of.Only == nil || of.Only.Name != "Cy" {
		t.Fatalf("OnlyField(cy) = %+v, %v", of, err)
	}
	mu, err := q.MustUser(ctx, sf.MustUserParams{Name: "Bob"})
	if err != nil || mu.Name != "Bob" || mu.Active == nil || *mu.Active {
		t.Fatalf("MustUser(Bob) = %+v, %v", mu, err)
	}
	if _, err = q.MustUser(ctx, sf.MustUserParams{Name: "Zed"}); !errors.Is(err, sf.ErrCardinalityViolation) ||
		err.Error() != "assert_exists violation: expression returned an empty set" {
		t.Fatalf("MustUser(Zed) err = %v", err)
	}

	// Standard-library functions with Gel's results.
	at := time.Date(2018, 5, 7, 15, 1, 22, 306000000, time.UTC)
	fn, err := q.StdFunctions(ctx, sf.StdFunctionsParams{T: at, S: ptr("ab")})
	if err != nil || fn.Trimmed != "xy" || fn.Repeated == nil || *fn.Repeated != "ababab" || fn.Replaced != "a-b-" ||
		fn.Reversed != "cba" || fn.Found != 2 || fn.NotFound != -1 || fn.Absolute != 3 || fn.Year != 2018 ||
		fn.Minutes != 1 || !fn.Day.Equal(time.Date(2018, 5, 7, 0, 0, 0, 0, time.UTC)) || len(fn.ID) != 36 {
		t.Fatalf("StdFunctions = %+v, %v", fn, err)
	}
	if fn, err = q.StdFunctions(ctx, sf.StdFunctionsParams{T: at}); err != nil || fn.Repeated != nil {
		t.Fatalf("StdFunctions(no s) = %+v, %v", fn, err)
	}

	// More standard-library functions, with Gel's empty-set rules: sum of none is 0, the mean
	// of the fallback, ?= of an empty value false, re_match without a match empty.
	more, err := q.StdMore(ctx, sf.StdMoreParams{S: ptr("x"), Doc: `{"a": [1, 2]}`, Email: "ann@example", N: ptr(int64(4))})
	if err != nil || more.Trimmed != "x" || !more.Has || !reflect.DeepEqual(more.Parts, []string{"a", "b", "", "c"}) ||
		!reflect.DeepEqual(more.Letters, []string{"a", "b", "c"}) ||
		!reflect.DeepEqual(more.Groups, []string{"ann", "example"}) || more.Text != "42 2018-05-07" ||
		more.Rounded != 2 || more.Smallest != 1 || more.Total != 4 || more.Mean != 4 ||
		!more.At.Equal(time.Date(2018, 5, 7, 13, 1, 22, 0, time.UTC)) || more.Day != "2018-05-07" ||
		more.Kind != "object" || string(more.Field) != "[1, 2]" || len(more.V1) != 36 || more.V1[14] != '1' ||
		!more.Same || more.Differs || more.Size == nil || *more.Size != 1 || more.Pick != "long" {
		t.Fatalf("StdMore = %+v, %v", more, err)
	}
	none, err := q.StdMore(ctx, sf.StdMoreParams{Doc: "[]", Email: "nobody"})
	if err != nil || none.Groups != nil || none.Total != 0 || none.Mean != 7 || string(none.Field) != `"none"` ||
		none.Kind != "array" || none.Same || !none.Differs || none.Size != nil || none.Pick != "short" {
		t.Fatalf("StdMore(empty) = %+v, %v", none, err)
	}
	if ds, err := q.DistinctActive(ctx); err != nil || len(ds) != 3 || ds[0].Name != "Ann" || ds[1].Name != "Cy" ||
		ds[2].Name != "Dee" {
		t.Fatalf("DistinctActive = %+v, %v", ds, err)
	}

	// `??` binds tighter than `*` and `++`; json_get() of an empty json value is empty.
	if om, err := q.OptionalMath(ctx, sf.OptionalMathParams{}); err != nil || om.B != 20 || om.C != "pre-none" ||
		om.J != nil {
		t.Fatalf("OptionalMath() = %+v, %v", om, err)
	}
	if om, err := q.OptionalMath(ctx, sf.OptionalMathParams{N: ptr(int64(3)), A: ptr("x"), Doc: json.RawMessage(`{"b": 1}`)}); err != nil ||
		om.B != 6 || om.C != "pre-x" || string(om.J) != `"dflt"` {
		t.Fatalf("OptionalMath(3, x, doc) = %+v, %v", om, err)
	}

	// Sets of values: literals and array elements united in order, an empty value no element;
	// distinct keeps each value once.
	if vs, err := q.ValuesUnion(ctx, sf.ValuesUnionParams{First: ptr("a"), More: []string{"c", "b"}}); err != nil ||
		!reflect.DeepEqual(vs, []string{"a", "b", "c", "b"}) {
		t.Fatalf("ValuesUnion = %v, %v", vs, err)
	}
	if vs, err := q.ValuesUnion(ctx, sf.ValuesUnionParams{More: []string{}}); err != nil ||
		!reflect.DeepEqual(vs, []string{"b"}) {
		t.Fatalf("ValuesUnion(empty) = %v, %v", vs, err)
	}
	if ds, err := q.DistinctValues(ctx, sf.DistinctValuesParams{Xs: []int64{3, 2, 3}}); err != nil || len(ds) != 3 {
		t.Fatalf("DistinctValues = %v, %v", ds, err)
	} else {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		if !reflect.DeepEqual(ds, []int64{1, 2, 3}) {
			t.Fatalf("DistinctValues = %v", ds)
		}
	}

	// select global current_user { ... }: the object a global holds.
	var annID string
	if err := db.QueryRow(ctx, `SELECT id FROM "user" WHERE name = 'Ann'`).Scan(&annID); err != nil {
		t.Fatal(err)
	}
	me, err := sf.New(db).WithGlobals(sf.Globals{CurrentUserID: &annID}).Query.Me(ctx)
	if err != nil || me == nil || me.Name != "Ann" || me.Email == nil || *me.Email != "ann@example.com" {
		t.Fatalf("Me = %+v, %v", me, err)
	}
	if me, err = q.Me(ctx); err != nil || me != nil {
		t.Fatalf("Me(no global) = %+v, %v", me, err)
	}
}
