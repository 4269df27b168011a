// End-to-end test of Gel's calendar and duration scalars, bigint and decimal in the generated
// database/sql runner over pgx's stdlib driver (see test_gel_scalars_e2e.py): optional values are
// sql.NullTime / sql.NullString, pgtype.Time and pgtype.Interval (Valid false is NULL) and
// *time.Duration; they come back equal, at the top level and inside a nested shape.
package e2e

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/jackc/pgx/v5/stdlib"

	gs "schemactest/gs"
)

func ptr[T any](v T) *T { return &v }

func TestGelScalars(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, "DELETE FROM event; DELETE FROM person"); err != nil {
		t.Fatal(err)
	}
	q := gs.New(db).Query
	born := time.Date(1815, 12, 10, 0, 0, 0, 0, time.UTC)
	seen := time.Date(2024, 2, 29, 23, 59, 58, 500000000, time.UTC)
	person, err := q.AddPerson(ctx, gs.AddPersonParams{Name: "ada", Born: sql.NullTime{Time: born, Valid: true},
		Seen: sql.NullTime{Time: seen, Valid: true}})
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
		Name: "launch", Owner: person.ID, Day: sql.NullTime{Time: day, Valid: true},
		Starts: sql.NullTime{Time: starts, Valid: true}, At: at, Length: ptr(90 * time.Minute), Every: every, Span: span,
		Days: days, Big: sql.NullString{String: "123456789012345678901234567890", Valid: true},
		Money: sql.NullString{String: "1234.5678", Valid: true},
	}
	if _, err := q.AddEvent(ctx, launch); err != nil {
		t.Fatal(err)
	}
	blank := gs.AddEventParams{Name: "blank", Owner: person.ID, Day: sql.NullTime{Time: day.AddDate(-1, 0, 0), Valid: true}}
	if _, err := q.AddEvent(ctx, blank); err != nil {
		t.Fatal(err)
	}

	rows, err := q.Events(ctx, gs.EventsParams{From: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(rows) != 1 {
		t.Fatalf("events: %#v (%v)", rows, err)
	}
	r := rows[0]
	if r.Name != "launch" || !r.Day.Valid || !r.Day.Time.Equal(day) || !r.Starts.Time.Equal(starts) || r.At != at ||
		r.Length == nil || *r.Length != 90*time.Minute || r.Every != every || r.Span != span || len(r.Days) != 2 ||
		!r.Days[1].Equal(days[1]) || r.Big.String != "123456789012345678901234567890" || r.Money.String != "1234.5678" ||
		!r.Created.Equal(day) {
		t.Fatalf("row: %#v", r)
	}
	if r.Owner == nil || r.Owner.Name != "ada" || !r.Owner.Born.Equal(born) || !r.Owner.Seen.Equal(seen) {
		t.Fatalf("owner: %#v", r.Owner)
	}
	// The blank event's optional values are NULL: Valid false, nil.
	all, err := q.Events(ctx, gs.EventsParams{From: time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)})
	if err != nil || len(all) != 2 || all[0].Name != "blank" || all[0].At.Valid || all[0].Every.Valid ||
		all[0].Length != nil || all[0].Starts.Valid {
		t.Fatalf("all events: %#v (%v)", all, err)
	}
	longer, err := q.LongerThan(ctx, gs.LongerThanParams{Min: time.Minute})
	if err != nil || len(longer) != 1 || longer[0].Name != "launch" {
		t.Fatalf("longer than: %#v (%v)", longer, err)
	}

	_, err = q.AddEvent(ctx, gs.AddEventParams{Name: "bad", Owner: person.ID, Length: ptr(25 * time.Hour),
		Span: pgtype.Interval{Microseconds: 1, Valid: true}})
	var spanErr *gs.CkEventSpanDateDurationError
	if !errors.As(err, &spanErr) {
		t.Fatalf("a date_duration with a time part: %v", err)
	}
}
