// End-to-end test of the generated Go runner of tests/cases/query_sets (see
// test_query_sets_e2e.py): sets of objects of a query's `with` names, array_agg, any/all and
// assert_exists, through pgx v5 against the database in $DATABASE_URL. The test empties the
// tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	qs "schemactest/querysets"
)

func TestQuerySets(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, sql := range []string{
		`TRUNCATE player, character, waifu, roll, collection CASCADE`,
		`INSERT INTO player (name) VALUES ('ann'), ('bob')`,
		`INSERT INTO character (cid, rank, image) VALUES (1, 'S', 'x.jpg'), (2, 'A', 'y/default.jpg'), (3, 'B', 'z.jpg')`,
		`INSERT INTO waifu (character_id, owner_id) SELECT c.id, p.id FROM character c, player p WHERE (p.name = 'ann' AND c.cid IN (1, 3)) OR (p.name = 'bob' AND c.cid IN (1, 2))`,
		`INSERT INTO roll (author_id, reason, coins) SELECT id, v.r, v.c FROM player, (VALUES ('a', 3), ('b', NULL), ('c', 7)) AS v(r, c) WHERE name = 'ann'`,
		`INSERT INTO roll_received (source_id, target_id) SELECT r.id, w.id FROM roll r, waifu w JOIN character c ON c.id = w.character_id JOIN player p ON p.id = w.owner_id WHERE (r.reason = 'a' AND p.name = 'ann' AND c.cid = 1) OR (r.reason = 'b' AND p.name = 'bob' AND c.cid = 1) OR (r.reason = 'c' AND p.name = 'ann' AND c.cid = 3)`,
		`INSERT INTO collection (name) VALUES ('all'), ('none')`,
		`INSERT INTO collection_characters (source_id, target_id, weight) SELECT l.id, c.id, c.cid * 4 FROM collection l, character c WHERE l.name = 'all'`,
	} {
		if _, err := db.Exec(ctx, sql); err != nil {
			t.Fatal(err)
		}
	}
	q := qs.New(db).Query

	ann, err := q.RollStats(ctx, qs.RollStatsParams{Name: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(ann.Reasons)
	want := qs.RollStatsRow{Total: 2, Coins: 3, Reasons: []string{"a", "b"}, Ranks: []qs.Rank{qs.RankS}, Received: 2,
		ACount: 1, AnyReceived: true}
	if !reflect.DeepEqual(ann, want) {
		t.Fatalf("RollStats(ann) = %+v, want %+v", ann, want)
	}
	zed, err := q.RollStats(ctx, qs.RollStatsParams{Name: "zed"})
	if err != nil || zed.Total != 0 || zed.Coins != 0 || len(zed.Reasons) != 0 || len(zed.Ranks) != 0 || zed.AnyReceived {
		t.Fatalf("RollStats(zed) = %+v, %v", zed, err)
	}

	last, err := q.LastRolls(ctx, qs.LastRollsParams{N: 2})
	if err != nil || !reflect.DeepEqual(last.Reasons, []string{"c", "b"}) || last.N != 2 {
		t.Fatalf("LastRolls(2) = %+v, %v", last, err)
	}

	var all string
	if err := db.QueryRow(ctx, `SELECT id FROM collection WHERE name = 'all'`).Scan(&all); err != nil {
		t.Fatal(err)
	}
	st, err := q.CollectionStats(ctx, qs.CollectionStatsParams{Name: "ann", ID: all})
	if err != nil || st.Collection.Name != "all" || st.NbCharas != 2 || st.NbOwned != 2 {
		t.Fatalf("CollectionStats(ann) = %+v, %v", st, err)
	}
	if _, err := q.CollectionStats(ctx, qs.CollectionStatsParams{Name: "ann", ID: "00000000-0000-0000-0000-000000000000"}); err == nil ||
		!strings.Contains(err.Error(), "assert_exists violation: expression returned an empty set") {
		t.Fatalf("CollectionStats(no collection) error = %v", err)
	}

	rs, err := q.Reasons(ctx, qs.ReasonsParams{N: 2})
	if err != nil || !reflect.DeepEqual(rs, []string{"c", "b"}) {
		t.Fatalf("Reasons(2) = %v, %v", rs, err)
	}
	ranks, err := q.RanksOwned(ctx)
	sort.Slice(ranks, func(i, j int) bool { return ranks[i] < ranks[j] })
	if err != nil || !reflect.DeepEqual(ranks, []qs.Rank{qs.RankA, qs.RankB, qs.RankS}) {
		t.Fatalf("RanksOwned = %v, %v", ranks, err)
	}

	w, err := q.Weighted(ctx, qs.WeightedParams{W: 10})
	if err != nil || len(w) != 2 || !w[0].Heavy || w[0].AllS || w[1].Heavy || !w[1].AllS {
		t.Fatalf("Weighted(10) = %+v, %v", w, err)
	}

	// a with name bound again shadows the earlier binding (its value reads it); a nested with too
	rolls, err := q.RollsOf(ctx, qs.RollsOfParams{})
	if err != nil || !reflect.DeepEqual(rolls, []qs.RollsOfRow{{Reason: "a", Tag: "a!", By: "ann"},
		{Reason: "b", Tag: "b!", By: "ann"}, {Reason: "c", Tag: "c!", By: "ann"}}) {
		t.Fatalf("RollsOf() = %+v, %v", rolls, err)
	}
	bob := "BOB"
	if rolls, err := q.RollsOf(ctx, qs.RollsOfParams{Name: &bob}); err != nil || len(rolls) != 0 {
		t.Fatalf("RollsOf(BOB) = %+v, %v", rolls, err)
	}
	zedName := "Zed"
	if _, err := q.RollsOf(ctx, qs.RollsOfParams{Name: &zedName}); err == nil ||
		!strings.Contains(err.Error(), "assert_exists violation") {
		t.Fatalf("RollsOf(Zed) error = %v", err)
	}

	// a with selection of another one, also in if/else branches; a path from the one object a name holds
	pools := func(name *string, picky *bool) string {
		groups, err := q.PoolOf(ctx, qs.PoolOfParams{Name: name, Picky: picky})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, g := range groups {
			s := string(g.Key.Rank) + ":"
			for _, e := range g.Elements {
				s += fmt.Sprint(e.Cid)
			}
			out = append(out, s)
		}
		sort.Strings(out) // (Gel: any order)
		return strings.Join(out, " ")
	}
	annName, bobName, yes, no := "ann", "bob", true, false
	for _, c := range []struct {
		name  *string
		picky *bool
		want  string
	}{{nil, nil, "B:3 S:1"}, {&annName, &yes, "S:1"}, {&bobName, &yes, "B:3"}, {&zedName, &yes, "B:3 S:1"}, {&annName, &no, "B:3 S:1"}} {
		if got := pools(c.name, c.picky); got != c.want {
			t.Fatalf("PoolOf(%v, %v) = %q, want %q", c.name, c.picky, got, c.want)
		}
	}
	// a chain of if/else over selections; a nested shape filtered and ordered by a link property
	w12, w8 := int32(12), int32(8)
	full := qs.CollectionsByRow{Name: "all", Characters: []qs.CollectionsByCharacters{{Cid: 3, Weight: &w12}, {Cid: 2, Weight: &w8}}}
	allName, one := "all", int64(1)
	if got, err := q.CollectionsBy(ctx, qs.CollectionsByParams{Name: &allName}); err != nil || !reflect.DeepEqual(got, []qs.CollectionsByRow{full}) {
		t.Fatalf("CollectionsBy(all) = %+v, %v", got, err)
	}
	if got, err := q.CollectionsBy(ctx, qs.CollectionsByParams{MinN: &one}); err != nil || !reflect.DeepEqual(got, []qs.CollectionsByRow{full}) {
		t.Fatalf("CollectionsBy(min 1) = %+v, %v", got, err)
	}
	if got, err := q.CollectionsBy(ctx, qs.CollectionsByParams{}); err != nil || len(got) != 2 || !reflect.DeepEqual(got[0], full) ||
		got[1].Name != "none" || len(got[1].Characters) != 0 {
		t.Fatalf("CollectionsBy() = %+v, %v", got, err)
	}
	// distinct (a union b); x in s.p of a path from a with name; a nested with's set of detached objects
	waifus := func(name string) string {
		rows, err := q.WaifusOf(ctx, qs.WaifusOfParams{Name: name})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rows {
			out = append(out, fmt.Sprintf("%d:%s", r.Character.Cid, r.Owner.Name))
		}
		return strings.Join(out, " ")
	}
	if got := waifus("ann"); got != "1:ann 1:bob 3:ann" {
		t.Fatalf("WaifusOf(ann) = %q", got)
	}
	if got := waifus("bob"); got != "3:ann" {
		t.Fatalf("WaifusOf(bob) = %q", got)
	}
	if _, err := q.WaifusOf(ctx, qs.WaifusOfParams{Name: "zed"}); err == nil || !strings.Contains(err.Error(), "assert_exists violation") {
		t.Fatalf("WaifusOf(zed) error = %v", err)
	}
	// a with in a for body naming a set of objects per element
	counts, err := q.CountsFor(ctx, qs.CountsForParams{Names: []string{"none", "all", "nope"}})
	sort.Slice(counts, func(i, j int) bool { return counts[i].Name < counts[j].Name }) // (Gel: any order)
	if err != nil || !reflect.DeepEqual(counts, []qs.CountsForRow{{Name: "all", N: 2, M: 3}, {Name: "none", N: 3, M: 0}}) {
		t.Fatalf("CountsFor = %+v, %v", counts, err)
	}
}
