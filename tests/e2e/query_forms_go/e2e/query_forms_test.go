// End-to-end test of the generated Go runner of tests/cases/query_forms (see
// test_query_forms_e2e.py): with blocks, json bulk inserts, multi link changes in updates, link
// properties and partial updates, through pgx v5 against the database in $DATABASE_URL. The
// test empties the tables first, so it can run once per Go toolchain.
package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	qf "schemactest/queryforms"
)

const noID = "00000000-0000-0000-0000-000000000000"

func tagNames(t *testing.T, db *pgxpool.Pool, post string) []string {
	t.Helper()
	rows, err := db.Query(context.Background(),
		"SELECT t.name FROM post_tags pt JOIN tag t ON t.id = pt.target_id WHERE pt.source_id = $1 ORDER BY t.name", post)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			t.Fatal(err)
		}
		names = append(names, n)
	}
	return names
}

func ptr[T any](v T) *T { return &v }

func TestQueryForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec := func(sql string, args ...any) {
		t.Helper()
		if _, err := db.Exec(ctx, sql, args...); err != nil {
			t.Fatal(err)
		}
	}
	exec("TRUNCATE account, tag CASCADE")
	var ann string
	if err := db.QueryRow(ctx, "INSERT INTO account (email, name) VALUES ('ann@example.com', 'Ann') RETURNING id").Scan(&ann); err != nil {
		t.Fatal(err)
	}
	tags := map[string]string{}
	for _, name := range []string{"go", "sql", "ts"} {
		var id string
		if err := db.QueryRow(ctx, "INSERT INTO tag (name) VALUES ($1) RETURNING id", name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		tags[name] = id
	}
	q := qf.New(db).Query

	// with: a value bound once; a parameter used twice.
	found, err := q.AccountByEmail(ctx, qf.AccountByEmailParams{Email: "ANN@Example.com"})
	if err != nil || found == nil || found.ID != ann || found.Name == nil || *found.Name != "Ann" {
		t.Fatalf("account_by_email: %+v, %v", found, err)
	}
	if none, err := q.AccountByEmail(ctx, qf.AccountByEmailParams{Email: "nobody@example.com"}); err != nil || none != nil {
		t.Fatalf("no account: %+v, %v", none, err)
	}
	named, err := q.AccountsNamed(ctx, qf.AccountsNamedParams{Who: "Ann"})
	if err != nil || !reflect.DeepEqual(named, []qf.AccountsNamedRow{{ID: ann, Email: "ann@example.com"}}) {
		t.Fatalf("accounts_named: %+v, %v", named, err)
	}

	// with: a bound insert with tags, selected with a nested shape.
	created, err := q.CreatePost(ctx, qf.CreatePostParams{Title: "Hello", Slug: "hello", AuthorID: ann,
		TagIDs: []string{tags["go"], tags["sql"], tags["go"]}})
	if err != nil {
		t.Fatal(err)
	}
	if created.Title != "Hello" || created.Views == nil || *created.Views != 0 ||
		created.Author.Email != "ann@example.com" || created.Author.Name == nil || *created.Author.Name != "Ann" {
		t.Fatalf("create_post: %+v", created)
	}
	if got := tagNames(t, db, created.ID); !reflect.DeepEqual(got, []string{"go", "sql"}) {
		t.Fatalf("tags after create: %v", got)
	}
	_, err = q.CreatePost(ctx, qf.CreatePostParams{Title: "Again", Slug: "hello", AuthorID: ann, TagIDs: []string{}})
	var slugErr *qf.UqPostSlugError
	if !errors.As(err, &slugErr) {
		t.Fatalf("want *UqPostSlugError, got %v", err)
	}
	// an unknown id: (select Tag filter .id in ...) finds nothing, so nothing is linked, as in Gel
	// (https://docs.geldata.com/reference/edgeql/insert#links; issue 25, item 6)
	unknownTag, err := q.CreatePost(ctx, qf.CreatePostParams{Title: "X", Slug: "x", AuthorID: ann, TagIDs: []string{"00000000-0000-0000-0000-000000000001"}})
	if err != nil {
		t.Fatalf("create_post with an unknown tag id: %v", err)
	}
	if got := tagNames(t, db, unknownTag.ID); len(got) != 0 {
		t.Fatalf("tags of a post given an unknown tag id: %v", got)
	}
	published, err := q.PublishPost(ctx, qf.PublishPostParams{ID: created.ID})
	if err != nil || published == nil || published.PublishedAt == nil || len(published.Tags) != 2 {
		t.Fatalf("publish_post: %+v, %v", published, err)
	}
	for _, tag := range published.Tags {
		if tag.Position == nil || *tag.Position != 0 {
			t.Fatalf("@position: %+v", tag)
		}
	}
	if none, err := q.PublishPost(ctx, qf.PublishPostParams{ID: noID}); err != nil || none != nil {
		t.Fatalf("publish nothing: %+v, %v", none, err)
	}

	// Multi link changes in an update.
	if row, err := q.AddTags(ctx, qf.AddTagsParams{ID: created.ID, TagIDs: []string{tags["ts"]}}); err != nil || row == nil {
		t.Fatalf("add_tags: %v, %v", row, err)
	}
	exec("UPDATE post_tags SET position = 7, note = 'kept' WHERE target_id = $1", tags["sql"])
	if _, err := q.RemoveTags(ctx, qf.RemoveTagsParams{ID: created.ID, TagIDs: []string{tags["go"]}}); err != nil {
		t.Fatal(err)
	}
	if got := tagNames(t, db, created.ID); !reflect.DeepEqual(got, []string{"sql", "ts"}) {
		t.Fatalf("tags after += and -=: %v", got)
	}
	retagged, err := q.RetagPost(ctx, qf.RetagPostParams{ID: created.ID, Title: "Retagged", TagIDs: []string{tags["sql"], tags["go"]}})
	if err != nil || retagged == nil || retagged.Title != "Retagged" || retagged.Author.Email != "ann@example.com" {
		t.Fatalf("retag_post: %+v, %v", retagged, err)
	}
	if got := tagNames(t, db, created.ID); !reflect.DeepEqual(got, []string{"go", "sql"}) {
		t.Fatalf("tags after :=: %v", got)
	}
	if row, err := q.AddTags(ctx, qf.AddTagsParams{ID: noID, TagIDs: []string{tags["go"]}}); err != nil || row != nil {
		t.Fatalf("add_tags to nothing: %v, %v", row, err)
	}

	// Link properties in a shape.
	withProps, err := q.PostTags(ctx, qf.PostTagsParams{ID: created.ID})
	if err != nil || withProps == nil {
		t.Fatalf("post_tags: %v, %v", withProps, err)
	}
	var seen []string
	for _, tag := range withProps.Tags {
		seen = append(seen, fmt.Sprintf("%s@%d/%v", tag.Name, *tag.Position, tag.Note != nil && *tag.Note == "kept"))
	}
	sort.Strings(seen)
	if !reflect.DeepEqual(seen, []string{"go@0/false", "sql@7/true"}) {
		t.Fatalf("link properties: %v", seen)
	}

	// Partial update: nil leaves a property unchanged.
	exec("UPDATE post SET body = 'text', views = 3 WHERE id = $1", created.ID)
	if _, err := q.EditPost(ctx, qf.EditPostParams{ID: created.ID, Views: ptr(int32(4))}); err != nil {
		t.Fatal(err)
	}
	if _, err := q.EditPost(ctx, qf.EditPostParams{ID: created.ID, Title: ptr("Edited")}); err != nil {
		t.Fatal(err)
	}
	var title, body string
	var views int32
	if err := db.QueryRow(ctx, "SELECT title, body, views FROM post WHERE id = $1", created.ID).Scan(&title, &body, &views); err != nil {
		t.Fatal(err)
	}
	if title != "Edited" || body != "text" || views != 4 {
		t.Fatalf("after partial updates: %q %q %d", title, body, views)
	}

	// json_array_unpack: 1,000 posts in one statement; duplicates skipped.
	items := make([]map[string]any, 0, 1002)
	for i := 0; i < 1000; i++ {
		items = append(items, map[string]any{"title": fmt.Sprintf("P%d", i), "slug": fmt.Sprintf("p%d", i), "author": ann, "views": i})
	}
	items = append(items, map[string]any{"title": "dup", "slug": "p0", "author": ann},
		map[string]any{"title": "old", "slug": "hello", "author": ann})
	payload, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	imported, err := q.ImportPosts(ctx, qf.ImportPostsParams{Items: payload})
	if err != nil || len(imported) != 1000 {
		t.Fatalf("import_posts: %d rows, %v", len(imported), err)
	}
	_, err = q.ImportPosts(ctx, qf.ImportPostsParams{Items: json.RawMessage(`[{"title": null, "slug": "null-title", "author": "` + ann + `"}]`)})
	if !errors.Is(err, qf.ErrNotNullViolation) {
		t.Fatalf("want a not-null violation, got %v", err)
	}
	// a missing member fails as Gel's json[name] (https://docs.geldata.com/reference/stdlib/json#operator::jsonobjdest)
	_, err = q.ImportPosts(ctx, qf.ImportPostsParams{Items: json.RawMessage(`[{"slug": "no-title", "author": "` + ann + `"}]`)})
	if err == nil || !strings.Contains(err.Error(), "JSON index 'title' is out of bounds") {
		t.Fatalf("want JSON index 'title' is out of bounds, got %v", err)
	}
}
