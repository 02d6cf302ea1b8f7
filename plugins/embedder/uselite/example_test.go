package uselite_test

import (
	"context"
	"fmt"
	"log"

	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// Load the weights that scripts/fetch-models.sh downloaded and embed two
// sentences. (Not run as a test: it needs the weights.)
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
	fmt.Printf("%d dimensions, cosine %.3f\n", len(vecs[0]), cos)
}
