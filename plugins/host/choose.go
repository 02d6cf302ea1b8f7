package host

import (
	"fmt"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// EmbedderAuto is the embedding.name that lets HuiMemory choose the
// embedder: use-lite when its weights are installed, else hash. The CLI
// treats an empty name the same way (see [ChooseEmbedder]).
const EmbedderAuto = "auto"

// The embedders the automatic choice picks between.
const (
	autoSemantic = uselite.Name
	autoFallback = "hash"
)

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
// "use-lite (auto: weights installed at /root/.cache/huimem/models/use-lite)".
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
// program), it is left as it is. Otherwise emb.Name becomes "use-lite"
// when the use-lite weights are installed in emb.ModelDir (or, when that
// is empty, in the models directory, $HUIMEM_MODELS/use-lite or
// ~/.cache/huimem/models/use-lite) and emb.Dim is 0 or use-lite's, and
// "hash" otherwise.
//
// The check is cheap (a stamp file and the files' sizes; nothing is
// hashed or loaded) and only reads the disk. [New] and [Open] call it for
// the name [EmbedderAuto]; the CLI calls it for an empty name as well, so
// that a configuration which does not mention an embedder gets the best
// one installed. A Config built in Go with an empty name gets hash, as
// core.Config.SetDefaults says, unless its caller calls ChooseEmbedder.
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
	c := EmbedderChoice{Auto: true, ModelDir: dir}
	switch {
	case emb.Dim != 0 && emb.Dim != uselite.Dim:
		c.Name = autoFallback
		c.Reason = fmt.Sprintf("embedding.dim is %d, and %s has %d dimensions", emb.Dim, autoSemantic, uselite.Dim)
	case models.UseLite.InstalledIn(dir):
		c.Name = autoSemantic
		c.Reason = "weights installed at " + dir
	default:
		c.Name = autoFallback
		c.Reason = "no model installed; `huimem models pull " + autoSemantic + "`"
	}
	emb.Name = c.Name
	return c
}
