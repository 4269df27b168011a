// End-to-end test of tuple properties in the generated pgx runner (see test_gel_tuples_e2e.py):
// tuples written with literals holding parameters, cleared with {}, compared whole in a filter,
// and read element by element.
package e2e

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	tp "schemactest/tp"
)

func TestTuples(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM service"); err != nil {
		t.Fatal(err)
	}
	q := tp.New(db).Query
	for _, p := range []tp.AddServiceParams{
		{Name: "a", Mon: true, Tue: false, X: 1.5, Y: -2, Px: "2.25", Py: "3"},
		{Name: "b", Mon: false, Tue: true, X: 0.5, Y: 4, Px: "7", Py: "8.125"},
		{Name: "c", Mon: false, Tue: true, X: 9, Y: 9, Px: "1", Py: "1"},
	} {
		if _, err := q.AddService(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.ClearPos(ctx, tp.ClearPosParams{Name: "b"}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.Services(ctx, tp.ServicesParams{Tue: false})
	if err != nil || len(rows) != 2 {
		t.Fatalf("services: %#v (%v)", rows, err)
	}
	a, b := rows[0], rows[1]
	if a.Name != "a" || !a.Mon || a.Wed || a.X == nil || *a.X != 1.5 || a.Y == nil || *a.Y != -2 ||
		a.FirstX == nil || *a.FirstX != "2.25" || a.N == nil || *a.N != 2 {
		t.Fatalf("a: %#v", a)
	}
	if b.Name != "b" || b.Mon || !b.Wed || b.X != nil || b.Y != nil || b.FirstX == nil || *b.FirstX != "7" {
		t.Fatalf("b: %#v", b)
	}
}
