// Package select1 stands in for generated code: a DBTX interface and one query.
package select1

import (
	"context"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// DBTX is satisfied by *pgx.Conn, *pgxpool.Pool and pgx.Tx.
type DBTX interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// SelectOne returns n, round-tripped through the server.
func SelectOne(ctx context.Context, db DBTX, n int32) (int32, error) {
	var one int32
	err := db.QueryRow(ctx, "select $1::int4", n).Scan(&one)
	return one, err
}
