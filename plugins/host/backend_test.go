package host

import (
	"testing"

	"github.com/huimemory/huimemory/core/postgres"
)

// TestPostgresBackendVectors: the engine gets the backend's HNSW search
// when storage.postgres.hnsw made one, and no search at all (not a typed
// nil, which the engine would call) when it did not.
func TestPostgresBackendVectors(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   *postgres.HNSW
		want bool
	}{
		{"hnsw off", nil, false},
		{"hnsw on", &postgres.HNSW{}, true},
	} {
		eb := PostgresBackend(&postgres.Backend{Vectors: tc.in})
		if got := eb.Vectors != nil; got != tc.want {
			t.Errorf("%s: engine backend has a vector search = %v, want %v", tc.name, got, tc.want)
		}
		if tc.want && eb.Vectors != any(tc.in) {
			t.Errorf("%s: the engine's vector search is not the backend's", tc.name)
		}
	}
}
