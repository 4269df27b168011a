package e2e

import (
	"encoding/json"
	"math"
	"os"
	"sort"
	"testing"
)

// The documents of test_extensions_e2e.py and the query vector.
var docs = map[string][]float32{
	"east": {1, 0, 0}, "east-north": {0.9, 0.2, 0}, "north": {0, 1, 0}, "up": {0, 0, 1},
	"west": {-1, 0, 0}, "far-east": {4, 0.5, 0}, "diagonal": {0.5, 0.5, 0.5},
}

var query = []float32{1, 0.1, 0}

func dot(a, b []float32) float64 {
	s := 0.0
	for i := range a {
		s += float64(a[i]) * float64(b[i])
	}
	return s
}

var distances = map[string]func(a, b []float32) float64{
	"cosine": func(a, b []float32) float64 { return 1 - dot(a, b)/math.Sqrt(dot(a, a)*dot(b, b)) },
	"l2": func(a, b []float32) float64 {
		s := 0.0
		for i := range a {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		}
		return math.Sqrt(s)
	},
	"ip": func(a, b []float32) float64 { return -dot(a, b) },
}

// nearestHere is the three nearest titles by distance kind, computed in Go.
func nearestHere(kind string) []string {
	titles := make([]string, 0, len(docs))
	for t := range docs {
		titles = append(titles, t)
	}
	d := distances[kind]
	sort.Slice(titles, func(i, j int) bool {
		di, dj := d(docs[titles[i]], query), d(docs[titles[j]], query)
		if di != dj {
			return di < dj
		}
		return titles[i] < titles[j]
	})
	return titles[:3]
}

// want is what the Python test computed (SCHEMAC_VECTOR_WANT), checked against nearestHere.
func want(t *testing.T) map[string][]string {
	var w map[string][]string
	if err := json.Unmarshal([]byte(os.Getenv("SCHEMAC_VECTOR_WANT")), &w); err != nil {
		t.Fatal(err)
	}
	for kind, titles := range w {
		if here := nearestHere(kind); !equal(here, titles) {
			t.Fatalf("%s: Python says %q, Go says %q", kind, titles, here)
		}
	}
	return w
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
