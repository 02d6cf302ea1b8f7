package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGuideConfigLoads loads the integration guide's config.yaml verbatim:
// each renamed key takes effect under its new name with one warning, keys
// with no meaning here are accepted with a warning, and a misspelt key is
// still an error.
func TestGuideConfigLoads(t *testing.T) {
	guide, err := os.ReadFile(filepath.Join("testdata", "guide-config.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir)
	cfgFile := filepath.Join(dir, "guide.yaml")
	os.WriteFile(cfgFile, guide, 0o600)
	var out, errs string
	var code int
	out, errs, code = cliNoHome(t, "--config", cfgFile, "config")
	if code != 0 {
		t.Fatalf("config: code %d: %s", code, errs)
	}
	for _, w := range []string{
		"storage.db_path is storage.home", "embedding.model_path is embedding.model_dir",
		"embedding.dimension is embedding.dim", "embedding.device is ignored",
		"archive.base_dir is ignored", "archive.compression is ignored", "retriever.default_top_k is retriever.top_k",
	} {
		if strings.Count(errs, w) != 1 {
			t.Errorf("want one warning %q, stderr:\n%s", w, errs)
		}
	}
	for _, want := range []string{"home: data\n", "model_dir: ./models/use-lite", "top_k: 8", "dim: 256", "enable_progressive_scan: true"} {
		if !strings.Contains(out, want) {
			t.Errorf("effective config lacks %q:\n%s", want, out)
		}
	}
	// A misspelt key is still an error.
	bad := strings.Replace(string(guide), "default_top_k", "defualt_top_k", 1)
	os.WriteFile(cfgFile, []byte(bad), 0o600)
	if _, errs, code := cliNoHome(t, "--config", cfgFile, "config"); code != 2 || !strings.Contains(errs, "defualt_top_k") {
		t.Errorf("misspelt key: code %d, %s", code, errs)
	}
	// Both spellings at once is an error.
	both := strings.Replace(string(guide), "default_top_k: 8", "default_top_k: 8\n  top_k: 9", 1)
	os.WriteFile(cfgFile, []byte(both), 0o600)
	if _, errs, code := cliNoHome(t, "--config", cfgFile, "config"); code != 2 || !strings.Contains(errs, "both retriever.default_top_k and retriever.top_k") {
		t.Errorf("both keys: code %d, %s", code, errs)
	}
}

// cliNoHome runs one command line in process without --home.
func cliNoHome(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(t.Context(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}
