package uselite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// Load the weights that `huimem models pull use-lite` (or
// scripts/fetch-models.sh, which scripts/test.sh runs) installed, and
// embed two sentences.
func ExampleLoad() {
	m, err := uselite.Load(uselite.DefaultDir())
	if err != nil {
		log.Fatal(err) // e.g. uselite: reading model.json in ...: no such file or directory
	}
	vecs, err := m.Embed(context.Background(), []string{"The cat sits on the mat.", "A kitten is resting on the rug."})
	if err != nil {
		log.Fatal(err)
	}
	var cos float32
	for i := range vecs[0] {
		cos += vecs[0][i] * vecs[1][i] // the vectors have unit length
	}
	fmt.Printf("%d dimensions, cosine %.2f\n", len(vecs[0]), cos)
	// Output: 512 dimensions, cosine 0.65
}
