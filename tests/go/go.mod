// Module used by schemac's generated-Go tests: the go_run fixture (tests/conftest.py)
// copies this go.mod and go.sum into a temporary module next to the generated
// package and its test file; tests/run fills the module cache from it.
//
// `go 1.21` (two parts) and pgx v5.7.4 (the newest pgx whose go.mod says `go 1.21`)
// keep the generated code buildable by Go 1.21, the newest Go that Pants 2.17 drives.
// The indirect requirements are those of pgx, pgconn, pgtype and pgxpool, so a
// generated package may import any of them.
module schemactest

go 1.21

require github.com/jackc/pgx/v5 v5.7.4

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.2 // indirect
	golang.org/x/crypto v0.31.0 // indirect
	golang.org/x/sync v0.10.0 // indirect
	golang.org/x/text v0.21.0 // indirect
)
