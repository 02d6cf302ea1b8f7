package index

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"path/filepath"
	"testing"
)

// mappingDigests records, for each index Version, the SHA-256 of the JSON
// of the mapping that version builds.
var mappingDigests = map[int]string{
	5: "5f90ae9a4f8f1c4109b1aae8163488dd318842e742bba4cb06c4640d830d15ea",
	6: "5f8bf05cd88a862145767463b9f51fa0c8320a206c7d59599662d5162d9a76bb",
	7: "81499a25e4153ae545bfd079179dc7f528736f97bb57991b49bc7cb5fcfbf2b9",
	8: "36de7b78452ece0c76e524bc8fba1f7adafd476daf668438995b8aa1806953d2",
}

// TestMappingOfVersion: OpenWith reads an index with the mapping that
// NewMapping builds, not the one saved in it, and trusts the index's
// version for their being the same. So the mapping must not change
// without a new Version (which makes older indexes rebuild): a change
// here fails until Version is raised and its digest recorded.
func TestMappingOfVersion(t *testing.T) {
	m, err := NewMapping()
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	got := hex.EncodeToString(sum[:])
	want, ok := mappingDigests[Version]
	if !ok || got != want {
		t.Errorf("the mapping of index version %d has digest %s, recorded %q: if the mapping changed, raise Version (older indexes then rebuild) and record the digest under it", Version, got, want)
	}
}

// TestOpenUsesTheMappingSaved checks that what OpenWith assumes holds for
// an index it created: the mapping saved in it decodes to the one
// NewMapping builds.
func TestOpenUsesTheMappingSaved(t *testing.T) {
	x, err := Open(filepath.Join(t.TempDir(), "index"))
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	saved, err := loadMapping(x.b.i)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(saved)
	b, _ := json.Marshal(x.b.Mapping())
	if string(a) != string(b) {
		t.Errorf("the saved mapping differs from the one the index is read with:\nsaved %s\nused  %s", a, b)
	}
}
