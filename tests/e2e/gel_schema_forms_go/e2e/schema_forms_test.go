// End-to-end test of the generated Go runner of tests/cases/gel_schema_forms (see
// test_gel_schema_forms_e2e.py): Gel forms real schemas use that schemac once refused, run on
// pgx v5 against the database in $DATABASE_URL. The test empties the tables first.
package e2e

import (
	"context"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	sf "schemactest/gelschemaforms"
)

func TestSchemaForms(t *testing.T) {
	ctx := context.Background()
	db, err := pgxpool.New(ctx, os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err = db.Exec(ctx, `TRUNCATE member, post, wallet CASCADE`)
	must(err)
	r := sf.New(db)
	for _, h := range []string{"carol", "alice", "bob"} {
		_, err = r.Query.AddMember(ctx, sf.AddMemberParams{Handle: h})
		must(err)
	}
	// The custom scalar's constraint and the property's own of the same kind both hold.
	if _, err = r.Query.AddMember(ctx, sf.AddMemberParams{Handle: "al"}); err == nil ||
		!strings.Contains(err.Error(), "ck_member_handle_min_len_value_") {
		t.Fatalf("a two-letter handle: %v", err)
	}
	_, err = db.Exec(ctx, `UPDATE member SET karma = 20 WHERE handle = 'alice'`)
	must(err)
	var n int
	must(db.QueryRow(ctx, `SELECT count(*) FROM member WHERE joined <= now() AND ratio = 0.5`).Scan(&n))
	if n != 3 {
		t.Fatalf("defaults: %d rows", n)
	}
	// The wallet link's default inserts a wallet per member.
	var wallets, distinct int
	must(db.QueryRow(ctx, `SELECT (SELECT count(*) FROM wallet), count(DISTINCT wallet_id) FROM member`).Scan(&wallets, &distinct))
	if wallets != 3 || distinct != 3 {
		t.Fatalf("wallets: %d, %d", wallets, distinct)
	}

	// (select Member filter ... order by .handle limit 1): the first match.
	_, err = r.Query.AddPost(ctx, sf.AddPostParams{Title: "Hello World", Pattern: "%o%"})
	must(err)
	_, err = r.Query.AddPost(ctx, sf.AddPostParams{Title: "Second post", Pattern: "%"})
	must(err)
	if _, err = r.Query.AddPost(ctx, sf.AddPostParams{Title: "None", Pattern: "z%"}); err == nil ||
		!strings.Contains(err.Error(), "author_id") {
		t.Fatalf("no author: %v", err)
	}
	_, err = r.Query.SetEditor(ctx, sf.SetEditorParams{Title: "Hello World"})
	must(err)
	_, err = db.Exec(ctx, `UPDATE member SET karma = 5 WHERE handle = 'alice'`)
	must(err)
	_, err = r.Query.SetEditor(ctx, sf.SetEditorParams{Title: "Second post"})
	must(err)
	posts, err := r.Query.PostByAuthor(ctx, sf.PostByAuthorParams{Handle: "bob"})
	must(err)
	if !reflect.DeepEqual(posts, []sf.PostByAuthorRow{{Title: "Hello World"}}) {
		t.Fatalf("post_by_author: %+v", posts)
	}

	// re_replace and bigint/decimal literals.
	slugs, err := r.Query.PostSlugs(ctx)
	must(err)
	want := []sf.PostSlugsRow{
		{Title: "Hello World", Slug: "hello-world", FirstO: "Hell0 World", Author: sf.PostSlugsAuthor{Handle: "bob", Wallet: sf.PostSlugsAuthorWallet{Coins: 5}},
			Editor: &sf.PostSlugsEditor{Handle: "alice"}, AuthorKarma: "11", Big: "12345678901234567890", Half: "0.5"},
		{Title: "Second post", Slug: "second-post", FirstO: "Sec0nd post", Author: sf.PostSlugsAuthor{Handle: "alice", Wallet: sf.PostSlugsAuthorWallet{Coins: 5}},
			Editor: &sf.PostSlugsEditor{Handle: "carol"}, AuthorKarma: "6", Big: "12345678901234567890", Half: "0.5"},
	}
	if !reflect.DeepEqual(slugs, want) {
		t.Fatalf("post_slugs: %+v", slugs)
	}

	// a path after a backlink with a shape: the editors of each member's posts
	mp, err := r.Query.MemberPosts(ctx)
	must(err)
	wantMP := []sf.MemberPostsRow{
		{Handle: "alice", Editors: []sf.MemberPostsEditors{{Handle: "carol"}}},
		{Handle: "bob", Editors: []sf.MemberPostsEditors{{Handle: "alice"}}},
		{Handle: "carol", Editors: []sf.MemberPostsEditors{}},
	}
	if !reflect.DeepEqual(mp, wantMP) {
		t.Fatalf("member_posts: %+v", mp)
	}

	// Badge is GoldBadge in a select of the abstract type
	_, err = db.Exec(ctx, `TRUNCATE gold_badge, plain_badge`)
	must(err)
	_, err = db.Exec(ctx, `INSERT INTO gold_badge (label) VALUES ('g')`)
	must(err)
	_, err = db.Exec(ctx, `INSERT INTO plain_badge (label) VALUES ('p')`)
	must(err)
	badges, err := r.Query.Badges(ctx)
	must(err)
	if !reflect.DeepEqual(badges, []sf.BadgesRow{{Label: "g", Shiny: true, Plain: false}, {Label: "p", Shiny: false, Plain: true}}) {
		t.Fatalf("badges: %+v", badges)
	}

	// single link holder := .<wallet[is Member] ?? .<savings[is Member], and .holder.handle.
	_, err = db.Exec(ctx, `INSERT INTO wallet (coins) VALUES (1), (2)`)
	must(err)
	_, err = db.Exec(ctx, `UPDATE member SET savings_id = (SELECT id FROM wallet WHERE coins = 2) WHERE handle = 'bob'`)
	must(err)
	ws, err := r.Query.Wallets(ctx)
	must(err)
	str := func(s string) *string { return &s }
	holder := func(h string) *sf.WalletsHolder { return &sf.WalletsHolder{Handle: h} }
	wantW := []sf.WalletsRow{
		{Coins: 1},
		{Coins: 5, HolderHandle: str("alice"), Holder: holder("alice")},
		{Coins: 2, HolderHandle: str("bob"), Holder: holder("bob")},
		{Coins: 5, HolderHandle: str("bob"), Holder: holder("bob")},
		{Coins: 5, HolderHandle: str("carol"), Holder: holder("carol")},
	}
	if !reflect.DeepEqual(ws, wantW) {
		t.Fatalf("wallets: %+v", ws)
	}
}
