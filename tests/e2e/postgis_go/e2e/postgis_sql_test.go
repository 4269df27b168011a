// End-to-end test of ext::postgis in the generated database/sql runner over pgx's stdlib driver
// (see test_postgis_e2e.py):
// geometries go in as WKT, EWKT and hex EWKB strings and come back as PostGIS's hex EWKB text.
package e2e

import (
	"context"
	"database/sql"
	"os"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	geo "schemactest/geo"
)

func TestPostgis(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	q := geo.New(db).Query
	area := "SRID=4326;POLYGON((0 0,0 0.001,0.001 0.001,0.001 0,0 0))"
	for _, p := range []geo.AddPlaceParams{
		{Name: "home", Point: "POINT(0 0)", Area: sql.NullString{String: area, Valid: true}},
		{Name: "shop", Point: "SRID=0;POINT(3 4)"},
		{Name: "far", Point: "0101000000000000000000244000000000000024C0"},
	} {
		if _, err := q.AddPlace(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := q.AddTrip(ctx, geo.AddTripParams{Label: "t1", Place: "shop"}); err != nil {
		t.Fatal(err)
	}
	near, err := q.Near(ctx, geo.NearParams{X: 0, Y: 0, R: 6})
	if err != nil {
		t.Fatal(err)
	}
	if len(near) != 2 || near[0].Name != "home" || near[0].Point != "010100000000000000000000000000000000000000" ||
		near[1].Wkt != "POINT(3 4)" || near[1].D != 5 || near[1].Srid != 0 {
		t.Fatalf("near: %+v", near)
	}
	origin, err := q.Origin(ctx)
	if err != nil || origin != "0101000020E6100000000000000000F03F0000000000000040" {
		t.Fatalf("origin: %q (%v)", origin, err)
	}
	trips, err := q.Trips(ctx)
	if err != nil || len(trips) != 1 || trips[0].Start.Point != "010100000000000000000008400000000000001040" ||
		trips[0].Start.Area != nil {
		t.Fatalf("trips: %+v (%v)", trips, err)
	}
}
