package configs_test

import (
	"bytes"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"go.yaml.in/yaml/v3"

	"github.com/huimemory/huimemory/configs"
	"github.com/huimemory/huimemory/core"
)

// TestDefaultsAgree checks, field by field, that config.yaml and
// core.Config.SetDefaults describe the same defaults: a library user who
// never reads the YAML gets what the CLI user gets. Fields the YAML leaves
// at their zero value ("use the default") must be filled the same way.
func TestDefaultsAgree(t *testing.T) {
	var fromYAML core.Config
	dec := yaml.NewDecoder(bytes.NewReader(configs.Default))
	dec.KnownFields(true)
	if err := dec.Decode(&fromYAML); err != nil {
		t.Fatalf("config.yaml does not decode into core.Config: %v", err)
	}
	fromYAML.SetDefaults()
	var fromCode core.Config
	fromCode.SetDefaults()
	if diff := cmp.Diff(fromCode, fromYAML, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("SetDefaults and config.yaml disagree (-SetDefaults +config.yaml):\n%s", diff)
	}
	if err := fromYAML.Validate(); err != nil {
		t.Errorf("the defaults do not validate: %v", err)
	}
}

// TestDefaultEmbedderIsChosen: the defaults name no embedder, so that the
// CLI chooses one (use-lite when its weights are installed, else hash;
// plugins/host ChooseEmbedder), and a Config built in Go without a name
// still gets hash from SetDefaults.
func TestDefaultEmbedderIsChosen(t *testing.T) {
	var fromYAML core.Config
	if err := yaml.Unmarshal(configs.Default, &fromYAML); err != nil {
		t.Fatal(err)
	}
	if got := fromYAML.Embedding.PluginSpec; got.Name != "" || got.Command != "" {
		t.Errorf("config.yaml names the embedder %+v; want it left to the automatic choice", got)
	}
	fromYAML.SetDefaults()
	if fromYAML.Embedding.Name != "hash" || fromYAML.Embedding.Dim != 256 {
		t.Errorf("SetDefaults gives %q/%d, want hash/256", fromYAML.Embedding.Name, fromYAML.Embedding.Dim)
	}
}
