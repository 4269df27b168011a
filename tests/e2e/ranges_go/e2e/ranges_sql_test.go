// End-to-end test of ranges in the generated database/sql runner over pgx's stdlib driver (see
// test_ranges_e2e.py): pgtype.Range (Valid false: NULL) and pgtype.Multirange (nil: NULL) values go
// in and come back equal through pgScan; contains() and overlaps() pick the rows.
package e2e

import (
	"context"
	"database/sql"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/jackc/pgx/v5/stdlib"

	rg "schemactest/rg"
)

func day(y int, m time.Month, d int) pgtype.Date {
	return pgtype.Date{Time: time.Date(y, m, d, 0, 0, 0, 0, time.UTC), Valid: true}
}

func TestRanges(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DELETE FROM booking"); err != nil {
		t.Fatal(err)
	}
	q := rg.New(db).Query
	seats := pgtype.Range[pgtype.Int4]{Lower: pgtype.Int4{Int32: 1, Valid: true}, Upper: pgtype.Int4{Int32: 5, Valid: true},
		LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true}
	at := time.Date(2024, 2, 29, 13, 45, 6, 500000000, time.UTC)
	during := pgtype.Range[pgtype.Timestamptz]{Lower: pgtype.Timestamptz{Time: at, Valid: true},
		LowerType: pgtype.Inclusive, UpperType: pgtype.Unbounded, Valid: true}
	days := pgtype.Range[pgtype.Date]{Lower: day(2024, 1, 1), Upper: day(2024, 2, 1), LowerType: pgtype.Inclusive,
		UpperType: pgtype.Exclusive, Valid: true}
	free := pgtype.Multirange[pgtype.Range[pgtype.Date]]{
		{Lower: day(2024, 1, 1), Upper: day(2024, 1, 3), LowerType: pgtype.Inclusive, UpperType: pgtype.Exclusive, Valid: true},
		{Lower: day(2024, 1, 10), LowerType: pgtype.Inclusive, UpperType: pgtype.Unbounded, Valid: true},
	}
	if _, err := q.AddBooking(ctx, rg.AddBookingParams{Name: "a", Seats: seats, During: during, Days: days, Free: free}); err != nil {
		t.Fatal(err)
	}
	b := pgtype.Range[pgtype.Int4]{Lower: pgtype.Int4{Int32: 10, Valid: true}, Upper: pgtype.Int4{Int32: 20, Valid: true},
		LowerType: pgtype.Inclusive, UpperType: pgtype.Inclusive, Valid: true}
	// b has days: Gel's contains(.days, d) or overlaps(...) is {} (not kept) when days is empty.
	bDays := pgtype.Range[pgtype.Date]{Lower: day(2024, 3, 1), Upper: day(2024, 3, 5), LowerType: pgtype.Inclusive,
		UpperType: pgtype.Inclusive, Valid: true}
	if _, err := q.AddBooking(ctx, rg.AddBookingParams{Name: "b", Seats: b, Days: bDays}); err != nil {
		t.Fatal(err)
	}
	rows, err := q.Bookings(ctx, rg.BookingsParams{Day: day(2024, 1, 15).Time, Lo: 100, Hi: 200})
	if err != nil || len(rows) != 1 {
		t.Fatalf("bookings: %#v (%v)", rows, err)
	}
	r := rows[0]
	if r.Name != "a" || r.Seats != seats || !r.During.Lower.Time.Equal(at) || r.During.UpperType != pgtype.Unbounded ||
		r.Days != days || len(r.Free) != 2 || r.Free[0] != free[0] || r.Free[1] != free[1] || r.IDs.Valid {
		t.Fatalf("row: %#v", r)
	}
	rows, err = q.Bookings(ctx, rg.BookingsParams{Day: day(2030, 1, 1).Time, Lo: 4, Hi: 11})
	// [10,20] comes back normalised as [10,21).
	if err != nil || len(rows) != 2 || rows[1].Name != "b" || rows[1].Seats.Upper.Int32 != 21 ||
		rows[1].Seats.UpperType != pgtype.Exclusive {
		t.Fatalf("overlapping: %#v (%v)", rows, err)
	}
}
