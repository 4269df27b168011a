// End-to-end test of Gel's calendar and duration scalars, bigint and decimal in the generated pgx
// runner (see test_gel_scalars_e2e.py): values go in as time.Time, pgtype.Time, time.Duration and
// pgtype.Interval and come back equal, at the top level and inside a nested shape.
package e2e

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	gs "schemactest/gs"
)

func ptr[T any](v T) *T { return &v }

func TestGelScalars(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, "DELETE FROM event; DELETE FROM person"); err != nil {
		t.Fatal(err)
	}
	q := gs.New(db).Query
	born := time.Date(1815, 12, 10, 0, 0, 0, 0, time.UTC)
	seen := time.Date(2024, 2, 29, 23, 59, 58, 500000000, time.UTC)
	person, err := q.AddPerson(ctx, gs.AddPersonParams{Name: "ada", Born: &born, Seen: &seen})
	if err != nil {
		t.Fatal(err)
	}
	day := time.Date(2024, 2, 29, 0, 0, 0, 0, time.UTC)
	starts := time.Date(2024, 2, 29, 13, 45, 6, 789123000, time.UTC)
	at := pgtype.Time{Microseconds: (13*3600+45*60+6)*1000000 + 123456, Valid: true}
	every := pgtype.Interval{Months: 1, Days: 2, Microseconds: 3 * 3600 * 1000000, Valid: true}
	span := pgtype.Interval{Months: 14, Days: 3, Valid: true}
	days := []time.Time{time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(2024, 12, 31, 0, 0, 0, 0, time.UTC)}
	launch := gs.AddEventParams{
		Name: "launch", Owner: person.ID, Day: &day, Starts: &starts, At: &at, Length: ptr(90 * time.Minute),
		Every: &every, Span: &span, Days: days, Big: ptr("123456789012345678901234567890"), Money: ptr("1234.5678"),
	}
	if _, err := q.AddEvent(ctx, launch); err != nil {
		t.Fatal(err)
	}
	if _, err := q.AddEvent(ctx, gs.AddEventParams{Name: "blank", Owner: person.ID, Day: ptr(day.AddDate(-1, 0, 0))}); err != nil {
		t.Fatal(err)
	}

	rows, err := q.Events(ctx, gs.EventsParams{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(rows) != 1 {
		t.Fatalf("events: %#v (%v)", rows, err)
	}
	r := rows[0]
	if r.Name != "launch" || !r.Day.Equal(day) || !r.Starts.Equal(starts) || *r.At != at || *r.Length != 90*time.Minute ||
		*r.Every != every || *r.Span != span || len(r.Days) != 2 || !r.Days[0].Equal(days[0]) || !r.Days[1].Equal(days[1]) ||
		*r.Big != "123456789012345678901234567890" || *r.Money != "1234.5678" || !r.Created.Equal(day) {
		t.Fatalf("row: %#v", r)
	}
	if r.Owner == nil || r.Owner.Name != "ada" || !r.Owner.Born.Equal(born) || !r.Owner.Seen.Equal(seen) {
		t.Fatalf("owner: %#v", r.Owner)
	}
	longer, err := q.LongerThan(ctx, gs.LongerThanParams{Min: time.Minute})
	if err != nil || len(longer) != 1 || longer[0].Name != "launch" {
		t.Fatalf("longer than: %#v (%v)", longer, err)
	}

	_, err = q.AddEvent(ctx, gs.AddEventParams{Name: "bad", Owner: person.ID, Every: &pgtype.Interval{Days: 1, Valid: true},
		Length: ptr(time.Duration(0)), Span: &pgtype.Interval{Microseconds: 1, Valid: true}})
	var spanErr *gs.CkEventSpanDateDurationError
	if !errors.As(err, &spanErr) {
		t.Fatalf("a date_duration with a time part: %v", err)
	}
}
