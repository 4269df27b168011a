// A Go module consuming the generated jobs package through Pants (not through copied files):
// worker/ imports "example.com/schemac/schemas/jobs", the `go_import_path` of //schemas/jobs, and
// Pants infers the dependency on that schema_library and compiles its generated Go.
//
// `go 1.21` has two parts (Pants 2.17 cannot parse `go 1.21.x`); pgx v5.7.4 is the newest pgx
// whose go.mod says `go 1.21`. Same requirements as tests/go/go.mod.
module example.com/schemac/consumer

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
