// End-to-end test of tuple properties in the generated database/sql runner over pgx's stdlib
// driver (see test_gel_tuples_e2e.py): the same round trip as the pgx test.
package e2e

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	tp "schemactest/tp"
)

func TestTuples(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DELETE FROM service"); err != nil {
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
	if a.Name != "a" || !a.Mon || a.Wed || !a.X.Valid || a.X.Float64 != 1.5 || a.Y.Float64 != -2 ||
		a.FirstX.String != "2.25" || a.N.Int64 != 2 {
		t.Fatalf("a: %#v", a)
	}
	if b.Name != "b" || b.Mon || !b.Wed || b.X.Valid || b.Y.Valid || b.FirstX.String != "7" {
		t.Fatalf("b: %#v", b)
	}
}
