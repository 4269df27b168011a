package select1

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

func TestSelectOne(t *testing.T) {
	ctx := context.Background()
	url := os.Getenv("DATABASE_URL")
	if url == "" {
		t.Fatal("DATABASE_URL is not set")
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	one, err := SelectOne(ctx, conn, 1)
	if err != nil || one != 1 {
		t.Fatalf("SelectOne = %d, %v", one, err)
	}
	var db string
	if err := conn.QueryRow(ctx, "select current_database()").Scan(&db); err != nil {
		t.Fatal(err)
	}
	t.Logf("database=%s", db)

	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if one, err := SelectOne(ctx, pool, 1); err != nil || one != 1 {
		t.Fatalf("SelectOne(pool) = %d, %v", one, err)
	}
}
