// Runner-overhead benchmark, Go side (driven by tests/bench/runner_overhead.py, which builds it
// in a copy of the tests/go module with generated/jobs/go in jobs/ and generated/blog/go in
// blog/).
//
// Generated: gen.New(conn).Query.EnqueueJob/ClaimJob/AuthorFeed. Hand-written: the same pgx v5
// calls on the same *pgx.Conn with the SAME SQL text. The generated constants are unexported,
// so the driver script extracts them from generated/*/go/queries.go at run time and passes
// them in the config's "sql" object (they are not retyped here).
//
//	bench bench '{"pairs":10000,"authorId":"...","take":100,"feedRepeat":200,"rounds":3,"sql":{...}}'
//	bench count '{"authorId":"...","take":100,"sql":{...}}'
//
// Prints one JSON object on stdout.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"schemactest/blog"
	"schemactest/jobs"
)

type config struct {
	Pairs      int               `json:"pairs"`
	AuthorID   string            `json:"authorId"`
	Take       int64             `json:"take"`
	FeedRepeat int               `json:"feedRepeat"`
	Rounds     int               `json:"rounds"`
	Warmup     int               `json:"warmup"`
	SQL        map[string]string `json:"sql"`
}

var (
	ctx = context.Background()
	cfg config
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

func sqlOf(name string) string {
	s, ok := cfg.SQL[name]
	if !ok || s == "" {
		must(fmt.Errorf("config.sql has no %q", name))
	}
	return s
}

// ---- the two implementations of each workload ----------------------------------------------

func pairsGenerated(r *jobs.Runner, n int) int {
	claimed := 0
	for i := 0; i < n; i++ {
		job, err := r.Query.EnqueueJob(ctx, jobs.EnqueueJobParams{
			Name: "job-" + strconv.Itoa(i), Actor: "bench", Payload: json.RawMessage(`{"i":` + strconv.Itoa(i) + `}`),
		})
		must(err)
		if job == nil {
			must(fmt.Errorf("enqueue skipped"))
		}
		row, err := r.Query.ClaimJob(ctx, jobs.ClaimJobParams{ID: job.ID})
		must(err)
		if row != nil {
			claimed++
		}
	}
	return claimed
}

func pairsHandWritten(conn *pgx.Conn, enqueueSQL, claimSQL string, n int) int {
	claimed := 0
	for i := 0; i < n; i++ {
		var id string
		err := conn.QueryRow(ctx, enqueueSQL, "job-"+strconv.Itoa(i), "bench",
			json.RawMessage(`{"i":`+strconv.Itoa(i)+`}`)).Scan(&id)
		must(err)
		var claimedID string
		switch err := conn.QueryRow(ctx, claimSQL, id).Scan(&claimedID); err {
		case nil:
			claimed++
		case pgx.ErrNoRows:
		default:
			must(err)
		}
	}
	return claimed
}

type feedAuthor struct {
	Handle      string `json:"handle"`
	DisplayName string `json:"display_name"`
}

type feedTag struct {
	Slug string `json:"slug"`
	Name string `json:"name"`
}

type feedRow struct {
	ID          string
	Title       string
	Status      string
	PublishedAt *time.Time
	Author      feedAuthor
	Tags        []feedTag
}

func feedHandWrittenOnce(conn *pgx.Conn, feedSQL string) []feedRow {
	rows, err := conn.Query(ctx, feedSQL, cfg.AuthorID, cfg.Take)
	must(err)
	defer rows.Close()
	var out []feedRow
	for rows.Next() {
		var r feedRow
		must(rows.Scan(&r.ID, &r.Title, &r.Status, &r.PublishedAt, &r.Author, &r.Tags))
		out = append(out, r)
	}
	must(rows.Err())
	return out
}

func feedGenerated(r *blog.Runner, repeat int) int {
	n := 0
	for i := 0; i < repeat; i++ {
		items, err := r.Query.AuthorFeed(ctx, blog.AuthorFeedParams{AuthorID: cfg.AuthorID, Take: cfg.Take})
		must(err)
		n += len(items)
	}
	return n
}

func feedHandWritten(conn *pgx.Conn, feedSQL string, repeat int) int {
	n := 0
	for i := 0; i < repeat; i++ {
		n += len(feedHandWrittenOnce(conn, feedSQL))
	}
	return n
}

// ---- statement counting ----------------------------------------------------------------------

// counter is a pgx QueryTracer: TraceQueryStart runs once per Query/QueryRow/Exec.
type counter struct{ sql []string }

func (c *counter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.sql = append(c.sql, d.SQL)
	return ctx
}

func (c *counter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func connect(tracer pgx.QueryTracer) *pgx.Conn {
	cc, err := pgx.ParseConfig(os.Getenv("DATABASE_URL"))
	must(err)
	cc.Tracer = tracer
	conn, err := pgx.ConnectConfig(ctx, cc)
	must(err)
	return conn
}

func seconds(fn func() int) (float64, int) {
	t0 := time.Now()
	n := fn()
	return time.Since(t0).Seconds(), n
}

func main() {
	mode := "bench"
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	raw := "{}"
	if len(os.Args) > 2 {
		raw = os.Args[2]
	}
	cfg = config{Pairs: 10000, FeedRepeat: 200, Rounds: 3, Warmup: -1}
	must(json.Unmarshal([]byte(raw), &cfg))
	enqueueSQL, claimSQL, feedSQL := sqlOf("enqueueJob"), sqlOf("claimJob"), sqlOf("authorFeed")
	enc := json.NewEncoder(os.Stdout)

	if mode == "count" {
		c := &counter{}
		conn := connect(c)
		defer conn.Close(ctx)
		_, err := conn.Exec(ctx, "TRUNCATE job")
		must(err)
		c.sql = nil
		j := jobs.New(conn)
		job, err := j.Query.EnqueueJob(ctx, jobs.EnqueueJobParams{Name: "count", Actor: "bench"})
		must(err)
		_, err = j.Query.ClaimJob(ctx, jobs.ClaimJobParams{ID: job.ID})
		must(err)
		pairStatements := len(c.sql)
		c.sql = nil
		feed, err := blog.New(conn).Query.AuthorFeed(ctx, blog.AuthorFeedParams{AuthorID: cfg.AuthorID, Take: cfg.Take})
		must(err)
		tags := 0
		for _, r := range feed {
			tags += len(r.Tags)
		}
		must(enc.Encode(map[string]any{
			"pairStatements": pairStatements, "feedStatements": len(c.sql), "feedRows": len(feed),
			"feedTags": tags, "feedSql": c.sql,
		}))
		return
	}

	conn := connect(nil)
	defer conn.Close(ctx)
	j := jobs.New(conn)
	b := blog.New(conn)
	reset := func() {
		_, err := conn.Exec(ctx, "TRUNCATE job")
		must(err)
	}

	// Same answers from both implementations.
	gen, err := b.Query.AuthorFeed(ctx, blog.AuthorFeedParams{AuthorID: cfg.AuthorID, Take: cfg.Take})
	must(err)
	hand := feedHandWrittenOnce(conn, feedSQL)
	if int64(len(gen)) != cfg.Take || len(hand) != len(gen) {
		must(fmt.Errorf("feed: %d generated rows, %d hand-written, want %d", len(gen), len(hand), cfg.Take))
	}
	for i := range gen {
		g, h := gen[i], hand[i]
		if g.ID != h.ID || g.Title != h.Title || string(g.Status) != h.Status ||
			!reflect.DeepEqual(g.PublishedAt, h.PublishedAt) ||
			g.Author.Handle != h.Author.Handle || len(g.Tags) != len(h.Tags) {
			must(fmt.Errorf("feed row %d differs: %+v vs %+v", i, g, h))
		}
	}

	warmup := cfg.Warmup
	if warmup < 0 {
		warmup = min(500, cfg.Pairs)
	}
	reset()
	pairsGenerated(j, warmup)
	reset()
	pairsHandWritten(conn, enqueueSQL, claimSQL, warmup)
	feedGenerated(b, min(20, cfg.FeedRepeat))
	feedHandWritten(conn, feedSQL, min(20, cfg.FeedRepeat))

	out := map[string]map[string][]float64{
		"pairs": {"generated": {}, "hand": {}},
		"feed":  {"generated": {}, "hand": {}},
	}
	for r := 0; r < cfg.Rounds; r++ {
		order := []string{"generated", "hand"}
		if r%2 == 1 {
			order = []string{"hand", "generated"}
		}
		for _, which := range order {
			reset()
			s, n := seconds(func() int {
				if which == "generated" {
					return pairsGenerated(j, cfg.Pairs)
				}
				return pairsHandWritten(conn, enqueueSQL, claimSQL, cfg.Pairs)
			})
			if n != cfg.Pairs {
				must(fmt.Errorf("%s: %d of %d jobs claimed", which, n, cfg.Pairs))
			}
			out["pairs"][which] = append(out["pairs"][which], s)
		}
		for _, which := range order {
			s, n := seconds(func() int {
				if which == "generated" {
					return feedGenerated(b, cfg.FeedRepeat)
				}
				return feedHandWritten(conn, feedSQL, cfg.FeedRepeat)
			})
			if int64(n) != int64(cfg.FeedRepeat)*cfg.Take {
				must(fmt.Errorf("%s: %d feed rows", which, n))
			}
			out["feed"][which] = append(out["feed"][which], s)
		}
	}
	reset()
	must(enc.Encode(out))
}
