// End-to-end test of the generated Go runner of tests/cases/group_forms (see
// test_group_forms_e2e.py): Gel's group statement through pgx v5 against the database in
// $DATABASE_URL. The test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"os"
	"reflect"
	"sort"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	gf "schemactest/groupforms"
)

func titles[T any](elements []T, title func(T) string) []string {
	out := []string{}
	for _, e := range elements {
		out = append(out, title(e))
	}
	sort.Strings(out)
	return out
}

func TestGroupForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{
		`TRUNCATE item, shelf, person CASCADE`,
		`INSERT INTO shelf (name) VALUES ('s1'), ('s2')`,
		`INSERT INTO person (name) VALUES ('ann'), ('bob')`,
		`INSERT INTO item (title, kind, year, shelf_id, owner_id)
		 SELECT v.title, v.kind, v.year, (SELECT id FROM shelf WHERE name = v.shelf), (SELECT id FROM person WHERE name = v.owner)
		 FROM (VALUES ('A: one', 'Book', 2015, 's1', 'ann'), ('B', 'Book', 2021, 's1', 'ann'),
		              ('C', 'Film', 2022, 's2', 'bob'), ('D', NULL, NULL, NULL, NULL),
		              ('E', 'Book', 2019, NULL, 'ann'), ('F', 'Film', 2020, 's2', 'bob'))
		      AS v(title, kind, year, shelf, owner)`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	q := gf.New(db).Query

	// group Item { title, owner: { name } } by .kind: the items without a kind form a group.
	byKind, err := q.ItemsByKind(ctx)
	if err != nil || len(byKind) != 3 {
		t.Fatalf("ItemsByKind = %+v, %v", byKind, err)
	}
	title := func(e gf.ItemsByKindElements) string { return e.Title }
	if byKind[0].Key.Kind != nil || !reflect.DeepEqual(byKind[0].Grouping, []string{"kind"}) ||
		!reflect.DeepEqual(byKind[0].Elements, []gf.ItemsByKindElements{{Title: "D"}}) {
		t.Fatalf("ItemsByKind[0] = %+v", byKind[0])
	}
	if byKind[1].Key.Kind == nil || *byKind[1].Key.Kind != gf.KindBook ||
		!reflect.DeepEqual(titles(byKind[1].Elements, title), []string{"A: one", "B", "E"}) {
		t.Fatalf("ItemsByKind[1] = %+v", byKind[1])
	}
	if byKind[2].Key.Kind == nil || *byKind[2].Key.Kind != gf.KindFilm || byKind[2].Elements[0].Owner == nil ||
		byKind[2].Elements[0].Owner.Name != "bob" {
		t.Fatalf("ItemsByKind[2] = %+v", byKind[2])
	}

	// group Item { title } by .shelf: the key is the shelf ({ id }), or nil.
	var s1 string
	if err := db.QueryRow(ctx, `SELECT id::text FROM shelf WHERE name = 's1'`).Scan(&s1); err != nil {
		t.Fatal(err)
	}
	byShelf, err := q.ItemsByShelf(ctx)
	if err != nil || len(byShelf) != 3 {
		t.Fatalf("ItemsByShelf = %+v, %v", byShelf, err)
	}
	shelfTitle := func(e gf.ItemsByShelfElements) string { return e.Title }
	seen := 0
	for _, g := range byShelf {
		switch {
		case g.Key.Shelf == nil:
			if !reflect.DeepEqual(titles(g.Elements, shelfTitle), []string{"D", "E"}) {
				t.Fatalf("no shelf: %+v", g)
			}
			seen++
		case g.Key.Shelf.ID == s1:
			if !reflect.DeepEqual(titles(g.Elements, shelfTitle), []string{"A: one", "B"}) {
				t.Fatalf("s1: %+v", g)
			}
			seen++
		}
	}
	if seen != 2 {
		t.Fatalf("ItemsByShelf = %+v", byShelf)
	}

	// using decade := .year // 10, has_colon := ... by decade, has_colon over a with selection.
	decades, err := q.ItemsByDecade(ctx, gf.ItemsByDecadeParams{Since: 2015})
	if err != nil || len(decades) != 3 {
		t.Fatalf("ItemsByDecade = %+v, %v", decades, err)
	}
	decadeTitle := func(e gf.ItemsByDecadeElements) string { return e.Title }
	want := []struct {
		decade int64
		colon  bool
		titles []string
	}{{201, false, []string{"E"}}, {201, true, []string{"A: one"}}, {202, false, []string{"B", "C", "F"}}}
	for i, w := range want {
		g := decades[i]
		if g.Key.Decade == nil || *g.Key.Decade != w.decade || g.Key.HasColon != w.colon ||
			!reflect.DeepEqual(g.Grouping, []string{"decade", "has_colon"}) ||
			!reflect.DeepEqual(titles(g.Elements, decadeTitle), w.titles) {
			t.Fatalf("ItemsByDecade[%d] = %+v", i, g)
		}
	}
	if none, err := q.ItemsByDecade(ctx, gf.ItemsByDecadeParams{Since: 2030}); err != nil || len(none) != 0 {
		t.Fatalf("ItemsByDecade(2030) = %+v, %v", none, err)
	}

	// A select over the groups: count(.elements), max(.elements.year), filter, ordered elements.
	busy, err := q.BusyOwners(ctx, gf.BusyOwnersParams{Min: 2})
	if err != nil || len(busy) != 2 {
		t.Fatalf("BusyOwners = %+v, %v", busy, err)
	}
	y := func(v int32) *int32 { return &v }
	ann := busy[0]
	if ann.Key.OwnerName == nil || *ann.Key.OwnerName != "ann" || ann.N != 3 || ann.Newest == nil || *ann.Newest != 2021 ||
		!reflect.DeepEqual(ann.Grouping, []string{"owner_name", "kind"}) ||
		!reflect.DeepEqual(ann.Elements, []gf.BusyOwnersElements{{Title: "B", Year: y(2021)}, {Title: "E", Year: y(2019)},
			{Title: "A: one", Year: y(2015)}}) {
		t.Fatalf("BusyOwners[0] = %+v", ann)
	}
	if busy[1].Key.OwnerName == nil || *busy[1].Key.OwnerName != "bob" || busy[1].N != 2 {
		t.Fatalf("BusyOwners[1] = %+v", busy[1])
	}
	if only, err := q.BusyOwners(ctx, gf.BusyOwnersParams{Min: 3}); err != nil || len(only) != 1 {
		t.Fatalf("BusyOwners(3) = %+v, %v", only, err)
	}

	// detached Item inside a select of Item: every item, not the one the shape is about.
	tt, err := q.TitlesAndTotal(ctx, gf.TitlesAndTotalParams{Year: 2021})
	if err != nil || len(tt) != 1 || tt[0].Title != "B" || tt[0].Total != 6 || tt[0].SameYear != 1 {
		t.Fatalf("TitlesAndTotal = %+v, %v", tt, err)
	}

	// .<owner[is Item].kind = $kind: the people owning at least one item of the kind.
	pk, err := q.PeopleWithKind(ctx, gf.PeopleWithKindParams{Kind: gf.KindBook})
	if err != nil || !reflect.DeepEqual(pk, []gf.PeopleWithKindRow{{Name: "ann"}}) {
		t.Fatalf("PeopleWithKind(Book) = %+v, %v", pk, err)
	}
	if pk, err = q.PeopleWithKind(ctx, gf.PeopleWithKindParams{Kind: gf.KindGame}); err != nil || len(pk) != 0 {
		t.Fatalf("PeopleWithKind(Game) = %+v, %v", pk, err)
	}

	// for t in array_unpack($titles) union (with it := (insert Item {...}) select it { title, owner: { name } })
	// a free object's field holding groups of a with selection whose shape computes the key
	counts, err := q.OwnerCounts(ctx, gf.OwnerCountsParams{Since: 2015, Top: 10})
	if err != nil || !reflect.DeepEqual(counts, gf.OwnerCountsRow{Total: 5,
		Owners: []gf.OwnerCountsOwners{{Who: "ann", N: 3}, {Who: "bob", N: 2}}}) {
		t.Fatalf("OwnerCounts(2015, 10) = %+v, %v", counts, err)
	}
	counts, err = q.OwnerCounts(ctx, gf.OwnerCountsParams{Since: 2020, Top: 1})
	if err != nil || !reflect.DeepEqual(counts, gf.OwnerCountsRow{Total: 3, Owners: []gf.OwnerCountsOwners{{Who: "bob", N: 2}}}) {
		t.Fatalf("OwnerCounts(2020, 1) = %+v, %v", counts, err)
	}
	counts, err = q.OwnerCounts(ctx, gf.OwnerCountsParams{Since: 2030, Top: 1})
	if err != nil || counts.Total != 0 || len(counts.Owners) != 0 {
		t.Fatalf("OwnerCounts(2030, 1) = %+v, %v", counts, err)
	}

	// a free object's fields selecting groups the query's own `with` binds
	book, film := gf.Kind("Book"), gf.Kind("Film")
	y21, y22 := int32(2021), int32(2022)
	no, yes := false, true
	all := []gf.KindCountsAllKinds{{Kind: &book, Newest: &y21}, {Kind: &film, Newest: &y22}}
	kc, err := q.KindCounts(ctx, gf.KindCountsParams{Since: 2015, Top: 1})
	if err != nil || !reflect.DeepEqual(kc, gf.KindCountsRow{Total: 5,
		Kinds: []gf.KindCountsKinds{{Kind: &book, N: 3}}, AllKinds: all,
		ByAge: []gf.KindCountsByAge{{Old: &no, N: 3}, {Old: &yes, N: 2}}}) {
		t.Fatalf("KindCounts(2015, 1) = %+v, %v", kc, err)
	}
	kc, err = q.KindCounts(ctx, gf.KindCountsParams{Since: 2021, Top: 5})
	if err != nil || !reflect.DeepEqual(kc, gf.KindCountsRow{Total: 2,
		Kinds: []gf.KindCountsKinds{{Kind: &book, N: 1}, {Kind: &film, N: 1}}, AllKinds: all,
		ByAge: []gf.KindCountsByAge{{Old: &no, N: 2}}}) {
		t.Fatalf("KindCounts(2021, 5) = %+v, %v", kc, err)
	}
	kc, err = q.KindCounts(ctx, gf.KindCountsParams{Since: 2030, Top: 5})
	if err != nil || kc.Total != 0 || len(kc.Kinds) != 0 || len(kc.AllKinds) != 0 || len(kc.ByAge) != 0 {
		t.Fatalf("KindCounts(2030, 5) = %+v, %v", kc, err)
	}
	// a select over a group written in place (the item without a kind is a group of its own)
	over, err := q.KindsOver(ctx, gf.KindsOverParams{Min: 1})
	if err != nil || !reflect.DeepEqual(over, []gf.KindsOverRow{{Kind: &book, N: 3}, {Kind: &film, N: 2}, {Kind: nil, N: 1}}) {
		t.Fatalf("KindsOver(1) = %+v, %v", over, err)
	}
	over, err = q.KindsOver(ctx, gf.KindsOverParams{Min: 4})
	if err != nil || len(over) != 0 {
		t.Fatalf("KindsOver(4) = %+v, %v", over, err)
	}

	added, err := q.AddItems(ctx, gf.AddItemsParams{Owner: "bob", Titles: []string{"G", "H"}})
	if err != nil || len(added) != 2 || added[0].Owner == nil || added[0].Owner.Name != "bob" {
		t.Fatalf("AddItems = %+v, %v", added, err)
	}
	addedTitle := func(e gf.AddItemsRow) string { return e.Title }
	if !reflect.DeepEqual(titles(added, addedTitle), []string{"G", "H"}) {
		t.Fatalf("AddItems = %+v", added)
	}
}
