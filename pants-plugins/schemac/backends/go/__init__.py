"""The Go back end: ``go/`` (see :mod:`schemac.backends.go.codegen`)."""
