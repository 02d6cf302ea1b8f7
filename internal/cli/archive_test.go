package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/huimemory/huimemory/timeparse"

	"github.com/huimemory/huimemory/archive"
	"github.com/huimemory/huimemory/core/engine"
)

func TestArchiveSealListVerify(t *testing.T) {
	home := ingested(t)
	must := func(args ...string) string {
		t.Helper()
		out, errs, code := cli(t, home, args...)
		if code != 0 {
			t.Fatalf("%v: code %d: %s", args, code, errs)
		}
		return out
	}
	recall := must("recall", "--json", "--top-k", "3", "--context", "1", "Kyoto temples")
	var res struct {
		Results []struct {
			ID string `json:"id"`
		} `json:"results"`
	}
	json.Unmarshal([]byte(recall), &res)
	id := res.Results[0].ID
	get := must("get", "--context", "2", id)

	if out := must("archive", "list"); !strings.Contains(out, "2026-W25  open") {
		t.Errorf("list before sealing:\n%s", out)
	}
	out := must("archive", "seal", "--week", "2026-W25")
	if !strings.HasPrefix(out, "sealed 2026-W25: ") || strings.Count(out, "\n") != 1 || !strings.Contains(out, filepath.Join("sessions", "2026-W25.tar.zst")) {
		t.Errorf("seal --week:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(home, "sessions", "2026-W25")); err == nil {
		t.Errorf("the week's loose folder is still there")
	}
	// Every other finished week; not this one.
	this := timeparse.WeekOf(time.Now()).String()
	out = must("archive", "seal")
	if strings.Contains(out, "2026-W25") || strings.Contains(out, this) || !strings.HasPrefix(out, "sealed ") {
		t.Errorf("seal:\n%s", out)
	}
	if out := must("archive", "seal"); !strings.Contains(out, "nothing to seal") {
		t.Errorf("second seal:\n%s", out)
	}
	out = must("archive", "list")
	if !strings.Contains(out, "2026-W25  sealed") || !strings.Contains(out, "x\n") || !strings.HasPrefix(out, "NAMESPACE  WEEK") {
		t.Errorf("list after sealing:\n%s", out)
	}
	var weeks []engine.WeekInfo
	if err := json.Unmarshal([]byte(must("archive", "list", "--json")), &weeks); err != nil || len(weeks) < 2 {
		t.Fatalf("list --json: %+v, %v", weeks, err)
	}
	for _, w := range weeks {
		if sealed := w.Week < this; w.Sealed != sealed || (sealed && (w.Ratio <= 0 || w.ArchiveBytes == 0)) {
			t.Errorf("list --json: %+v", w)
		}
	}
	// Reads are the same from the archive.
	if got := must("recall", "--json", "--top-k", "3", "--context", "1", "Kyoto temples"); got != recall {
		t.Errorf("recall changed after sealing:\n%s\nwas\n%s", got, recall)
	}
	if got := must("get", "--context", "2", id); got != get {
		t.Errorf("get changed after sealing:\n%s\nwas\n%s", got, get)
	}
	if out := must("archive", "verify"); !strings.Contains(out, "ok   "+filepath.Join("sessions", "2026-W25.tar.zst")+": 1 files") || strings.Contains(out, "BAD") {
		t.Errorf("verify:\n%s", out)
	}

	// One damaged byte: verify fails and names the file; so does get,
	// once nothing is cached.
	arch := filepath.Join(home, "sessions", "2026-W25"+archive.Ext)
	data, _ := os.ReadFile(arch)
	data[len(data)/2] ^= 0xff
	os.WriteFile(arch, data, 0o600)
	os.RemoveAll(filepath.Join(home, "cache"))
	out, errs, code := cli(t, home, "archive", "verify")
	if code != exitError || !strings.Contains(out, "BAD  ") || !strings.Contains(errs, arch) || strings.Count(errs, "\n") != 1 {
		t.Errorf("verify of a damaged archive: code %d\nstdout %s\nstderr %s", code, out, errs)
	}
}

func TestArchiveUsageErrors(t *testing.T) {
	home := ingested(t)
	this := timeparse.WeekOf(time.Now()).String()
	for _, args := range [][]string{
		{"archive"},
		{"archive", "pack"},
		{"archive", "seal", "--week", "2026-47"},
		{"archive", "seal", "--week", this},
		{"archive", "list", "extra"},
	} {
		_, errs, code := cli(t, home, args...)
		if code != exitUsage || strings.Count(errs, "\n") != 1 || !strings.HasPrefix(errs, "huimem: ") {
			t.Errorf("%v: code %d, stderr %q; want a one-line usage error", args, code, errs)
		}
	}
}
