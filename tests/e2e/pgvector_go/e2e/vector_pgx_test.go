// End-to-end test of ext::pgvector in the generated pgx runner (see test_extensions_e2e.py):
// embeddings go in and come back as vec.Vector, and the nearest-neighbour queries return the
// titles computed in docs_test.go.
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	vec "schemactest/vec"
)

func TestVectorNearest(t *testing.T) {
	w := want(t)
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM doc"); err != nil {
		t.Fatal(err)
	}
	q := vec.New(db).Query
	for title, v := range docs {
		if _, err := q.AddDoc(ctx, vec.AddDocParams{Title: title, Embedding: vec.Vector(v)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.AddDoc(ctx, vec.AddDocParams{Title: "no-embedding"}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.Nearest(ctx, vec.NearestParams{Q: vec.Vector(query), N: 3})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, r.Title)
		if want := docs[r.Title]; len(r.Embedding) != len(want) || r.Embedding[0] != want[0] || r.Embedding[1] != want[1] ||
			r.Embedding[2] != want[2] {
			t.Fatalf("%s: embedding %v, want %v", r.Title, r.Embedding, want)
		}
	}
	if !equal(got, w["cosine"]) {
		t.Fatalf("cosine: %q, want %q", got, w["cosine"])
	}
	l2, err := q.NearestL2(ctx, vec.NearestL2Params{Q: vec.Vector(query), N: 3})
	if err != nil || len(l2) != 3 || l2[0].Title != w["l2"][0] || l2[1].Title != w["l2"][1] || l2[2].Title != w["l2"][2] {
		t.Fatalf("l2: %v (%v), want %q", l2, err, w["l2"])
	}
	ip, err := q.NearestIP(ctx, vec.NearestIPParams{Q: vec.Vector(query), N: 3})
	if err != nil || len(ip) != 3 || ip[0].Title != w["ip"][0] || ip[1].Title != w["ip"][1] || ip[2].Title != w["ip"][2] {
		t.Fatalf("ip: %v (%v), want %q", ip, err, w["ip"])
	}
}
