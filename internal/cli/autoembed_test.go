package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// realModels is where the use-lite weights are outside the tests
// ($HUIMEM_MODELS/use-lite or ~/.cache/huimem/models/use-lite).
var realModels string

// TestMain points $HUIMEM_MODELS at an empty folder, so that the tests run
// with the embedder a machine without models gets (hash) whatever this
// machine has installed. Tests of the automatic choice set it themselves.
func TestMain(m *testing.M) {
	realModels = uselite.DefaultDir()
	empty, err := os.MkdirTemp("", "huimem-no-models-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("HUIMEM_MODELS", empty)
	code := m.Run()
	os.RemoveAll(empty)
	os.Exit(code)
}

// withRealUseLite points $HUIMEM_MODELS at a folder holding the real
// use-lite weights (a link to them), or skips t when they are not
// installed (fails it with HUIMEM_REQUIRE_MODELS=1).
func withRealUseLite(t *testing.T) string {
	t.Helper()
	if !models.UseLite.InstalledIn(realModels) {
		msg := "use-lite weights not installed at " + realModels + "; run `huimem models pull use-lite`"
		if os.Getenv("HUIMEM_REQUIRE_MODELS") == "1" {
			t.Fatal(msg)
		}
		t.Skip(msg + " (HUIMEM_REQUIRE_MODELS=1 makes this a failure)")
	}
	root := t.TempDir()
	dir := filepath.Join(root, uselite.Name)
	if err := os.Symlink(realModels, dir); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HUIMEM_MODELS", root)
	return dir
}

// withFakeUseLite points $HUIMEM_MODELS at a folder whose use-lite
// installation passes the cheap check of models.Installed but holds no
// real weights: enough for commands that do not load the model.
func withFakeUseLite(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, uselite.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var stamp strings.Builder
	fmt.Fprintf(&stamp, "tarball %s\n", models.UseLite.SHA256)
	for _, f := range models.UseLite.Files {
		data := []byte("not really " + f)
		if err := os.WriteFile(filepath.Join(dir, f), data, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&stamp, "%s  %s\n", hex.EncodeToString(sum[:]), f)
	}
	if err := os.WriteFile(filepath.Join(dir, models.StampFile), []byte(stamp.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("HUIMEM_MODELS", root)
	return dir
}

// autoReason is how `huimem config` and `huimem stats` give the automatic
// choice's reason.
const autoReason = "fast for any language; set embedding.name: use-lite for English semantic vectors"

// TestConfigShowsEmbedderChoice: `huimem config` names the embedder that
// runs, with the reason on the same line when HuiMemory chose it. The
// automatic choice is hash whether or not use-lite is installed.
func TestConfigShowsEmbedderChoice(t *testing.T) {
	noModels := func(t *testing.T) string { return filepath.Join(os.Getenv("HUIMEM_MODELS"), "use-lite") }
	tests := []struct {
		name  string
		setup func(t *testing.T) string // returns the models dir
		env   map[string]string
		want  string
	}{
		{"no model installed", noModels, nil, "  name: hash # auto: " + autoReason + "\n"},
		{"use-lite installed", withFakeUseLite, nil, "  name: hash # auto: " + autoReason + "\n"},
		{"auto named, use-lite installed", withFakeUseLite, map[string]string{"HUIMEM_EMBEDDING_NAME": "auto"}, "  name: hash # auto: " + autoReason + "\n"},
		{"hash named, use-lite installed", withFakeUseLite, map[string]string{"HUIMEM_EMBEDDING_NAME": "hash"}, "  name: hash\n"},
		{"use-lite named", withFakeUseLite, map[string]string{"HUIMEM_EMBEDDING_NAME": "use-lite"}, "  name: use-lite\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.setup(t)
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			home := t.TempDir()
			out, errs, code := cli(t, home, "config")
			if code != 0 {
				t.Fatalf("config: code %d: %s", code, errs)
			}
			if !strings.Contains(out, "embedding:\n"+tt.want) {
				t.Errorf("config output lacks %q:\n%s", "embedding:\n"+tt.want, out)
			}
		})
	}
}

// statsJSON is what the tests read of `huimem stats --json`.
type statsJSON struct {
	Chunks   int `json:"chunks"`
	Embedder struct {
		Name string `json:"name"`
		Dim  int    `json:"dim"`
	} `json:"embedder"`
	Choice struct {
		Name   string `json:"name"`
		Auto   bool   `json:"auto"`
		Reason string `json:"reason"`
	} `json:"embedder_choice"`
}

func stats(t *testing.T, home string) (statsJSON, string) {
	t.Helper()
	out, errs, code := cli(t, home, "stats", "--json")
	if code != 0 {
		t.Fatalf("stats --json: code %d: %s", code, errs)
	}
	var s statsJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("stats --json: %v\n%s", err, out)
	}
	text, errs, code := cli(t, home, "stats")
	if code != 0 {
		t.Fatalf("stats: code %d: %s", code, errs)
	}
	return s, text
}

// TestAutoEmbedderNoModel: a new home is embedded with hash, and stats
// says why.
func TestAutoEmbedderNoModel(t *testing.T) {
	home := ingested(t)
	s, text := stats(t, home)
	if s.Embedder.Name != "hash" || s.Embedder.Dim != 256 || !s.Choice.Auto || s.Choice.Name != "hash" {
		t.Errorf("stats: %+v, want hash chosen automatically", s)
	}
	if want := "            auto: " + autoReason + "\n"; !strings.Contains(text, want) {
		t.Errorf("stats lacks %q:\n%s", want, text)
	}
}

// TestAutoEmbedderUseLiteHome follows a user whose home was embedded with
// use-lite (named, or picked by an older automatic choice) and whose
// configuration no longer names it: commands go on with use-lite while
// its weights are installed and say once per command how to keep it;
// `huimem reindex` re-embeds with hash, after which recall is silent.
// Without the weights, a command fails with one line that says how to
// get them back.
func TestAutoEmbedderUseLiteHome(t *testing.T) {
	withRealUseLite(t)
	t.Setenv("HUIMEM_EMBEDDING_NAME", "use-lite")
	home := ingested(t)
	before, _, code := cli(t, home, "recall", "--top-k", "1", "Kyoto temples")
	if code != 0 || !strings.Contains(before, "Kyoto") {
		t.Fatalf("recall with use-lite named: code %d:\n%s", code, before)
	}

	t.Setenv("HUIMEM_EMBEDDING_NAME", "")
	out, errs, code := cli(t, home, "recall", "--top-k", "1", "Kyoto temples")
	if code != 0 {
		t.Fatalf("recall under the automatic choice: code %d: %s", code, errs)
	}
	if out != before {
		t.Errorf("recall changed with the configuration:\n%s\nwant\n%s", out, before)
	}
	hint := "huimem: this home's vectors come from use-lite; set embedding.name: use-lite to keep it, or run `huimem reindex` to re-embed them with hash\n"
	if errs != hint {
		t.Errorf("stderr %q, want the one line %q", errs, hint)
	}
	s, text := stats(t, home)
	if s.Embedder.Name != "use-lite" || s.Choice.Name != "use-lite" || !s.Choice.Auto || s.Choice.Reason != "this home's vectors come from use-lite" {
		t.Errorf("stats before reindex: %+v", s)
	}
	if !strings.Contains(text, "auto: this home's vectors come from use-lite") {
		t.Errorf("stats text lacks the reason:\n%s", text)
	}

	t.Setenv("HUIMEM_MODELS", t.TempDir())
	_, errs, code = cli(t, home, "recall", "Kyoto temples")
	if code != exitError || !strings.Contains(errs, "the stored vectors come from use-lite") ||
		!strings.HasSuffix(errs, "; or, to keep use-lite, install its weights again: `huimem models pull use-lite`\n") ||
		strings.Count(errs, "\n") != 1 {
		t.Errorf("recall without the weights: code %d, stderr %q", code, errs)
	}

	out, errs, code = cli(t, home, "reindex")
	if code != 0 {
		t.Fatalf("reindex: code %d: %s", code, errs)
	}
	if want := fmt.Sprintf("re-embedded with hash and indexed %d chunks\n", s.Chunks); out != want {
		t.Errorf("reindex printed %q, want %q", out, want)
	}
	s, _ = stats(t, home)
	if s.Embedder.Name != "hash" || s.Embedder.Dim != 256 || s.Choice.Reason != autoReason {
		t.Errorf("stats after reindex: %+v", s)
	}
	out, errs, code = cli(t, home, "recall", "--top-k", "1", "Kyoto temples")
	if code != 0 || errs != "" || !strings.Contains(out, "Kyoto") {
		t.Errorf("recall with hash: code %d, stderr %q:\n%s", code, errs, out)
	}
}
