// End-to-end test of the generated Go runner of tests/cases/gel_auth (see
// test_gel_auth_e2e.py): the tables of Gel's auth extension and the global
// ext::auth::identity_id the application supplies (Globals.ExtAuthIdentityID), read as
// ext::auth::ClientTokenIdentity in a computed global, a filter, a link default and access
// policies, through pgx v5 against the database in $DATABASE_URL. The test empties the tables
// first.
package e2e

import (
	"context"
	"errors"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	ga "schemactest/gel_auth"
)

func ptr[T any](v T) *T { return &v }

func TestGelAuth(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(ctx, `TRUNCATE "ext_auth_identity", "ext_auth_local_identity", "user", post CASCADE`); err != nil {
		t.Fatal(err)
	}
	bare := ga.New(db)

	google, err := bare.Query.AddIdentity(ctx, ga.AddIdentityParams{Issuer: "https://accounts.google.com", Subject: "g-1"})
	if err != nil {
		t.Fatal(err)
	}
	github, err := bare.Query.AddIdentity(ctx, ga.AddIdentityParams{Issuer: "https://github.com", Subject: "gh-2"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = bare.Query.AddIdentity(ctx, ga.AddIdentityParams{Issuer: "https://github.com", Subject: "gh-2"})
	var dup *ga.UqExtAuthIdentityIssuerSubjectError
	if !errors.As(err, &dup) {
		t.Fatalf("duplicate identity: %v", err)
	}
	ann, err := bare.Query.AddUser(ctx, ga.AddUserParams{Name: "Ann", Identity: google.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bare.Query.AddUser(ctx, ga.AddUserParams{Name: "Bob", Identity: github.ID}); err != nil {
		t.Fatal(err)
	}

	// The signed-in identity is the global the application supplies.
	if me, err := bare.Query.Whoami(ctx); err != nil || me != nil {
		t.Fatalf("Whoami unset: %v %v", me, err)
	}
	asAnn := bare.WithGlobals(ga.Globals{ExtAuthIdentityID: ptr(google.ID)})
	asBob := bare.WithGlobals(ga.Globals{ExtAuthIdentityID: ptr(github.ID)})
	me, err := asAnn.Query.Whoami(ctx)
	if err != nil || me == nil || me.Name != "Ann" || me.Identity.Issuer != "https://accounts.google.com" || me.Identity.Subject != "g-1" {
		t.Fatalf("Whoami as Ann: %+v %v", me, err)
	}

	// The author link's default reads the computed global; only the author edits.
	post, err := asAnn.Query.WritePost(ctx, ga.WritePostParams{Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	var author string
	if err := db.QueryRow(ctx, `SELECT author_id FROM post WHERE id = $1`, post.ID).Scan(&author); err != nil || author != ann.ID {
		t.Fatalf("author: %q %v", author, err)
	}
	var notNull *ga.NotNullViolationError
	if _, err := bare.Query.WritePost(ctx, ga.WritePostParams{Text: "anonymous"}); !errors.As(err, &notNull) {
		t.Fatalf("anonymous post: %v", err)
	}
	if row, err := asBob.Query.EditPost(ctx, ga.EditPostParams{ID: post.ID, Text: "hacked"}); err != nil || row != nil {
		t.Fatalf("Bob edits Ann's post: %v %v", row, err)
	}
	if row, err := asAnn.Query.EditPost(ctx, ga.EditPostParams{ID: post.ID, Text: "edited"}); err != nil || row == nil {
		t.Fatalf("Ann edits her post: %v %v", row, err)
	}
	posts, err := asBob.Query.Posts(ctx)
	if err != nil || len(posts) != 1 || posts[0].Text != "edited" || posts[0].Author.Name != "Ann" {
		t.Fatalf("posts: %+v %v", posts, err)
	}

	// A local identity's subject is its own id.
	local, err := bare.Query.AddLocalIdentity(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var subject string
	if err := db.QueryRow(ctx, `SELECT subject FROM "ext_auth_local_identity" WHERE id = $1`, local.ID).Scan(&subject); err != nil || subject != local.ID {
		t.Fatalf("local subject: %q %v", subject, err)
	}
	if _, err := bare.Query.AddLogin(ctx, ga.AddLoginParams{Email: "ann@example.com", PasswordHash: "h", Identity: local.ID}); err != nil {
		t.Fatal(err)
	}
	var twice *ga.UqExtAuthEmailPasswordFactorIdentityIDError
	if _, err := bare.Query.AddLogin(ctx, ga.AddLoginParams{Email: "b@example.com", PasswordHash: "h", Identity: local.ID}); !errors.As(err, &twice) {
		t.Fatalf("second factor: %v", err)
	}
}
