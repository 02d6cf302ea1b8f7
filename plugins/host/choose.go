package host

import (
	"fmt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// EmbedderAuto is the embedding.name that lets HuiMemory choose the
// embedder: hash, which embeds any language at thousands of messages a
// second. use-lite, an English-only model that ingests a hundred times
// slower, runs only when named. The CLI treats an empty name the same way
// (see [ChooseEmbedder]).
const EmbedderAuto = "auto"

// autoEmbedder is what the automatic choice picks.
const autoEmbedder = "hash"

// EmbedderChoice says which embedder a configuration runs, and why.
type EmbedderChoice struct {
	// Name is the embedder that runs: a built-in's name, or the external
	// plugin's name.
	Name string `json:"name"`
	// Auto is set when the configuration left the choice to HuiMemory.
	Auto bool `json:"auto"`
	// Reason says why, in a few words: "weights installed at DIR", "no
	// model installed; `huimem models pull use-lite`", "set in the
	// configuration".
	Reason string `json:"reason"`
	// ModelDir is where the automatic choice looked for the use-lite
	// weights; empty when the choice was not automatic.
	ModelDir string `json:"model_dir,omitempty"`
}

// String gives the choice as `huimem stats` and `huimem config` print it:
// "hash (auto: fast for any language; ...)".
func (c EmbedderChoice) String() string {
	if c.Auto {
		return fmt.Sprintf("%s (auto: %s)", c.Name, c.Reason)
	}
	return fmt.Sprintf("%s (%s)", c.Name, c.Reason)
}

// IsAutoEmbedder reports whether emb leaves the choice of the embedder to
// HuiMemory: it names no external program and its name is empty or
// [EmbedderAuto].
func IsAutoEmbedder(emb core.EmbeddingConfig) bool {
	return emb.Command == "" && (emb.Name == "" || emb.Name == EmbedderAuto)
}

// ChooseEmbedder settles an automatic embedder choice in emb and says what
// it chose. When emb names an embedder (a built-in or an external
// program), it is left as it is. Otherwise emb.Name becomes "hash": the
// automatic choice never picks an embedder that ingests much slower than
// hash, nor one made for a single language. ModelDir says where use-lite's
// weights would be, for the hint in the reason.
//
// [New] and [Open] call it for the name [EmbedderAuto]; the CLI calls it
// for an empty name as well.
func ChooseEmbedder(emb *core.EmbeddingConfig) EmbedderChoice {
	if !IsAutoEmbedder(*emb) {
		name := emb.Name
		if name == "" {
			name = emb.Command
		}
		return EmbedderChoice{Name: name, Reason: "set in the configuration"}
	}
	dir := emb.ModelDir
	if dir == "" {
		dir = models.UseLite.Dir()
	}
	emb.Name = autoEmbedder
	return EmbedderChoice{Name: autoEmbedder, Auto: true, ModelDir: dir,
		Reason: "fast for any language; set embedding.name: " + uselite.Name + " for English semantic vectors"}
}
