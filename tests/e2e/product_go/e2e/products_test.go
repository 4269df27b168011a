// End-to-end test of the generated Go runners of schemas/blog, schemas/shop and schemas/saas
// (see test_product_libraries.py), through pgx v5. Each library lives in its own Postgres
// schema of the database in $DATABASE_URL; the test resets them, so it can run once per Go
// toolchain.
package e2e

import (
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"schemactest/blog"
	"schemactest/saas"
	"schemactest/shop"
)

func connect(t *testing.T, schema string) *pgxpool.Pool {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgxpool.ParseConfig(os.Getenv("DATABASE_URL"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// current is the running test, for must (the tests do not run in parallel).
var current *testing.T

// must returns v, failing the current test when err is not nil: must(q.X(ctx, params)).
func must[T any](v T, err error) T {
	current.Helper()
	if err != nil {
		current.Fatal(err)
	}
	return v
}

func truncate(t *testing.T, db *pgxpool.Pool, tables string) {
	t.Helper()
	if _, err := db.Exec(context.Background(), "TRUNCATE "+tables+" CASCADE"); err != nil {
		t.Fatal(err)
	}
}

func TestBlog(t *testing.T) {
	ctx := context.Background()
	current = t
	db := connect(t, "blog")
	truncate(t, db, `"user", tag`)
	q := blog.New(db).Query

	ada := must(q.RegisterUser(ctx, blog.RegisterUserParams{Email: "ada@example.com", Handle: "ada", DisplayName: "Ada"}))
	if ada == nil {
		t.Fatal("first registration returned nil")
	}
	if again := must(q.RegisterUser(ctx, blog.RegisterUserParams{Email: "ada@example.com", Handle: "x", DisplayName: "X"})); again != nil {
		t.Fatalf("a known e-mail must be absorbed, got %v", again)
	}
	_, err := q.RegisterUser(ctx, blog.RegisterUserParams{Email: "eve@example.com", Handle: "ada", DisplayName: "Eve"})
	var handleErr *blog.UqUserHandleError
	if !errors.As(err, &handleErr) || !errors.Is(err, blog.ErrExclusiveViolation) {
		t.Fatalf("want *UqUserHandleError, got %v", err)
	}
	minutes := int32(4)
	post := must(q.CreateDraft(ctx, blog.CreateDraftParams{Title: "Engines", Slug: "engines", AuthorID: ada.ID, ReadingMinutes: &minutes}))
	when := time.Date(2031, 1, 1, 9, 30, 0, 0, time.UTC)
	if row := must(q.SchedulePost(ctx, blog.SchedulePostParams{ID: post.ID, PublishAt: when})); row == nil {
		t.Fatal("schedule_post matched nothing")
	}
	var status blog.PublicationStatus
	var published time.Time
	if err := db.QueryRow(ctx, "SELECT status, published_at FROM post WHERE id = $1", post.ID).Scan(&status, &published); err != nil {
		t.Fatal(err)
	}
	if status != blog.PublicationStatusScheduled || !published.Equal(when) {
		t.Fatalf("got %v %v", status, published)
	}
	feed := must(q.AuthorFeed(ctx, blog.AuthorFeedParams{AuthorID: ada.ID, Take: 10}))
	if len(feed) != 1 || feed[0].Author.Handle != "ada" || feed[0].Author.DisplayName != "Ada" || len(feed[0].Tags) != 0 {
		t.Fatalf("author_feed: %+v", feed)
	}
	if got := must(q.ArchiveAuthorPosts(ctx, blog.ArchiveAuthorPostsParams{AuthorID: ada.ID})); len(got) != 1 {
		t.Fatalf("archive_author_posts: %v", got)
	}
}

func TestShop(t *testing.T) {
	ctx := context.Background()
	current = t
	db := connect(t, "shop")
	truncate(t, db, `customer, product`)
	q := shop.New(db).Query

	alice := must(q.RegisterCustomer(ctx, shop.RegisterCustomerParams{Email: "alice@example.com", Name: "Alice"}))
	stock := int32(3)
	tee := must(q.AddProduct(ctx, shop.AddProductParams{SKU: "TSHIRT-XL", Name: "T-shirt", Price: "19.90", Stock: &stock, Categories: []string{"apparel"}}))
	var price string
	var categories []string
	if err := db.QueryRow(ctx, "SELECT price::text, categories FROM product WHERE id = $1", tee.ID).Scan(&price, &categories); err != nil {
		t.Fatal(err)
	}
	if price != "19.90" || !reflect.DeepEqual(categories, []string{"apparel"}) {
		t.Fatalf("got %q %v", price, categories)
	}
	cart := must(q.OpenCart(ctx, shop.OpenCartParams{CustomerID: alice.ID}))
	if dup := must(q.OpenCart(ctx, shop.OpenCartParams{CustomerID: alice.ID})); dup != nil {
		t.Fatalf("a second open cart must be absorbed, got %v", dup)
	}
	must(q.AddLine(ctx, shop.AddLineParams{OrderID: cart.ID, ProductID: tee.ID, Quantity: 2, UnitPrice: "19.90"}))
	if reserved := must(q.ReserveStock(ctx, shop.ReserveStockParams{ProductID: tee.ID, Quantity: 5})); reserved != nil {
		t.Fatal("reserving more than the stock must match nothing")
	}
	must(q.PlaceOrder(ctx, shop.PlaceOrderParams{ID: cart.ID, ShippingAddress: "1 Main St"}))
	due := time.Date(2030, 6, 30, 0, 0, 0, 0, time.UTC)
	inv := must(q.IssueInvoice(ctx, shop.IssueInvoiceParams{Number: "INV-2030-000001", OrderID: cart.ID, CustomerID: alice.ID, Total: "39.80", DueAt: due}))
	if inv == nil {
		t.Fatal("issue_invoice returned nil")
	}
	pay := must(q.RecordPayment(ctx, shop.RecordPaymentParams{InvoiceID: inv.ID, Amount: "39.80", Method: shop.BillingPaymentMethodCard, ExternalRef: "ch_1"}))
	if pay == nil || !shop.BillingPaymentMethodBankTransfer.Valid() || shop.BillingPaymentMethod("Cash").Valid() {
		t.Fatal("record_payment / PaymentMethod.Valid")
	}
}

func TestSaas(t *testing.T) {
	ctx := context.Background()
	current = t
	db := connect(t, "saas")
	truncate(t, db, `organization, "user"`)
	q := saas.New(db).Query

	plan := saas.PlanTeam
	acme := must(q.CreateOrganization(ctx, saas.CreateOrganizationParams{Name: "Acme", Slug: "acme", Plan: &plan}))
	ann := must(q.SignUpUser(ctx, saas.SignUpUserParams{Email: "ann@acme.test"}))
	key := must(q.CreateAPIKey(ctx, saas.CreateAPIKeyParams{
		OrgID: acme.ID, Prefix: "sk_live_1", SecretHash: []byte{0, 1, 254, 255}, Label: "CI",
		Scopes: []saas.ApiScope{saas.ApiScopeProjectsRead, saas.ApiScopeBilling}, CreatedByID: &ann.ID,
	}))
	var hash []byte
	var scopes []string
	var expires *time.Time
	if err := db.QueryRow(ctx, "SELECT secret_hash, scopes, expires_at FROM api_key WHERE id = $1", key.ID).Scan(&hash, &scopes, &expires); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(hash, []byte{0, 1, 254, 255}) || !reflect.DeepEqual(scopes, []string{"projects:read", "billing"}) || expires != nil {
		t.Fatalf("got %v %v %v", hash, scopes, expires)
	}
	must(q.AddMember(ctx, saas.AddMemberParams{OrgID: acme.ID, UserID: ann.ID}))
	// (org, user) is exclusive: at most one membership changes.
	if row := must(q.ChangeMemberRole(ctx, saas.ChangeMemberRoleParams{OrgID: acme.ID, UserID: ann.ID, Role: saas.MemberRoleOwner})); row == nil {
		t.Fatal("change_member_role: no row")
	}
	must(q.CreateProject(ctx, saas.CreateProjectParams{OrgID: acme.ID, Name: "Web", Slug: "web", Labels: []string{"a"}}))
	_, err := q.CreateProject(ctx, saas.CreateProjectParams{OrgID: acme.ID, Name: "Web", Slug: "web-2", Labels: []string{}})
	var nameErr *saas.UqProjectOrgIDNameError
	if !errors.As(err, &nameErr) {
		t.Fatalf("want *UqProjectOrgIDNameError, got %v", err)
	}
	// Every named constraint has its own error type: CHECK (23514) and FK (23503) too.
	_, err = q.CreateProject(ctx, saas.CreateProjectParams{OrgID: acme.ID, Name: "Bad", Slug: "Not A Slug", Labels: []string{}})
	var slugErr *saas.CkProjectSlugRegexpError
	if !errors.As(err, &slugErr) || !errors.Is(err, saas.ErrCheckViolation) {
		t.Fatalf("want *CkProjectSlugRegexpError, got %v", err)
	}
	_, err = q.CreateProject(ctx, saas.CreateProjectParams{OrgID: "00000000-0000-0000-0000-000000000000", Name: "X", Slug: "xyz", Labels: []string{}})
	var orgErr *saas.FkProjectOrgIDError
	if !errors.As(err, &orgErr) || !errors.Is(err, saas.ErrForeignKeyViolation) || orgErr.Constraint() != "fk_project_org_id" {
		t.Fatalf("want *FkProjectOrgIDError, got %v", err)
	}
	if revoked := must(q.RevokeAPIKey(ctx, saas.RevokeAPIKeyParams{Prefix: "sk_live_1"})); revoked == nil || revoked.ID != key.ID {
		t.Fatalf("revoke: %v", revoked)
	}
}
