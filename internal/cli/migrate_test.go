package cli

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestMigrateCLI: huimem migrate copies a home into another folder (the
// PostgreSQL side is tested in internal/migrate), and bad uses get one
// line and the right exit code.
func TestMigrateCLI(t *testing.T) {
	src := ingested(t)
	dst := filepath.Join(t.TempDir(), "copy")
	out, errs, code := cli(t, src, "migrate", "--from", src, "--to", dst)
	if code != 0 || !strings.Contains(out, "copied home "+src) || !strings.Contains(out, "into home "+dst) {
		t.Fatalf("migrate: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	// The copy answers as the original does.
	a, _, _ := cli(t, src, "recall", "--json", "-k", "3", "部署")
	b, _, _ := cli(t, dst, "recall", "--json", "-k", "3", "部署")
	if a == "" || a != b {
		t.Errorf("recall on the copy differs:\n%s\n---\n%s", a, b)
	}
	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no destination", []string{"migrate", "--from", src}, exitUsage, "give both --from and --to"},
		{"same memory", []string{"migrate", "--from", src, "--to", src}, exitUsage, "the same memory"},
		{"no source", []string{"migrate", "--from", filepath.Join(t.TempDir(), "none"), "--to", filepath.Join(t.TempDir(), "x")}, exitError, "holds no HuiMemory store"},
		{"destination not empty", []string{"migrate", "--from", src, "--to", dst}, exitError, "the destination is not empty"},
		{"bad DSN", []string{"migrate", "--from", src, "--to", "postgres://u@localhost:notaport/db"}, exitUsage, "storage.postgres.dsn"},
	} {
		_, errs, code := cli(t, src, tc.args...)
		oneLineErr(t, tc.name, errs, code, tc.code, tc.want)
	}
}

func TestIsDSN(t *testing.T) {
	for s, want := range map[string]bool{
		"postgres://u@h/db":         true,
		"postgresql://u@h/db":       true,
		"host=db.internal dbname=x": true,
		"./restored":                false,
		"/var/lib/huimem":           false,
	} {
		if got := isDSN(s); got != want {
			t.Errorf("isDSN(%q) = %v, want %v", s, got, want)
		}
	}
}
