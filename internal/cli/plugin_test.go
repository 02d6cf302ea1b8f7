package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/huimemory/huimemory/plugins/embedder/hash"
)

// runPlugins runs one command line with home's config.yaml.
func runPlugins(t *testing.T, home string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), append([]string{"--home", home}, args...), strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func TestPluginsCommand(t *testing.T) {
	home := t.TempDir()
	config := `chunker: {name: window, options: {size: "300"}}
extractors:
  - name: general
  - name: broken
    command: /bin/true
`
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte(config), 0o600); err != nil {
		t.Fatal(err)
	}
	// Under go test the built-ins run in process (a test binary cannot
	// serve them); /bin/true is started, and fails the handshake.
	out, errs, code := runPlugins(t, home, "plugins")
	if code != exitError || errs != "huimem: 1 of 4 plugins do not start\n" {
		t.Errorf("code %d, stderr %q; want 1 and one line", code, errs)
	}
	flat := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"KIND NAME PROGRAM STARTS VERSION MODEL DIM",
		"embedder hash built-in (in process) yes",
		hash.Model + " 256",
		"chunker window built-in (in process) yes",
		"extractor general built-in (in process) yes",
		"extractor broken /bin/true no - - -",
		`plugin extractor "broken" (/bin/true): failed to start: not a HuiMemory plugin, or the go-plugin handshake failed`,
	} {
		if !strings.Contains(flat, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}

	out, _, _ = runPlugins(t, home, "plugins", "--json")
	var list []struct {
		Kind      string `json:"kind"`
		Name      string `json:"name"`
		InProcess bool   `json:"in_process"`
		Dim       int    `json:"dim"`
		OK        bool   `json:"ok"`
		Error     string `json:"error"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatalf("plugins --json: %v\n%s", err, out)
	}
	if len(list) != 4 || list[0].Dim != 256 || !list[0].OK || !list[1].InProcess || list[3].OK || list[3].Error == "" {
		t.Errorf("plugins --json = %+v", list)
	}
}

func TestPluginServeArgs(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"plugin", "serve", "chunker", "sentence"}, `huimem: plugin serve: no built-in chunker is called "sentence" (built-in chunkers: markdown, message, turn, window)`},
		{[]string{"plugin", "serve", "renderer", "x"}, `huimem: plugin serve: unknown kind "renderer": want embedder, chunker, extractor`},
		{[]string{"plugin", "serve", "chunker"}, "huimem: serve: accepts 2 arg(s), received 1"},
	} {
		_, errs, code := runPlugins(t, t.TempDir(), tc.args...)
		if code != exitUsage || strings.TrimSpace(errs) != tc.want {
			t.Errorf("%v: code %d, stderr %q; want %d, %q", tc.args, code, errs, exitUsage, tc.want)
		}
	}
}

func TestBadPluginConfig(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "config.yaml"), []byte("embedding: {name: word2vec}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := runPlugins(t, home, "stats")
	if code != exitUsage || !strings.Contains(errs, `plugin embedder "word2vec" (built-in): invalid input: no built-in embedder is called "word2vec" (built-in embedders: hash, openai, use-lite)`) {
		t.Errorf("code %d, stderr %q", code, errs)
	}
}
