package models

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// DefaultRegistry is the npm registry used when no npm configuration
// names one.
const DefaultRegistry = "https://registry.npmjs.org/"

// NPMEnv is where [LoadNPMConfig] looks. The zero value means this
// machine: the process environment, the user's home and the global npmrc
// under the prefix of the node on $PATH.
type NPMEnv struct {
	// Environ is the environment, as KEY=VALUE; nil means os.Environ().
	Environ []string
	// Home is the user's home directory; "" means os.UserHomeDir().
	Home string
	// GlobalConfigs are the global npmrc files to try when neither
	// npm_config_globalconfig nor a prefix names one, first existing one
	// wins; nil means <node prefix>/etc/npmrc, /usr/local/etc/npmrc and
	// /usr/etc/npmrc.
	GlobalConfigs []string
}

// NPMConfig is the part of the machine's npm configuration that a
// download needs.
type NPMConfig struct {
	// Registry is the default registry, always ending in "/".
	Registry string
	// Scoped holds the @scope:registry settings, by scope ("@energetic-ai").
	Scoped map[string]string
	// CAFile, when set, holds extra PEM certificates to trust.
	CAFile string
	// Proxy is the https-proxy (else proxy) setting; empty means the
	// HTTPS_PROXY/HTTP_PROXY environment variables.
	Proxy string
	// Sources says where each setting came from, by key, such as
	// "registry": "/root/.npmrc".
	Sources map[string]string
}

// RegistryFor returns the registry for package pkg: its scope's registry
// when one is set, else the default one.
func (c NPMConfig) RegistryFor(pkg string) string {
	if scope, _, ok := strings.Cut(pkg, "/"); ok && strings.HasPrefix(scope, "@") {
		if r, ok := c.Scoped[scope]; ok {
			return r
		}
	}
	return c.Registry
}

// LoadNPMConfig reads the npm configuration the way the npm client does,
// for the keys registry, @scope:registry, cafile, https-proxy and proxy.
// Highest first: npm_config_* environment variables (in any case, such
// as NPM_CONFIG_REGISTRY), the user config ($npm_config_userconfig or
// ~/.npmrc), the global config ($npm_config_globalconfig, else
// <prefix>/etc/npmrc where the prefix is npm_config_prefix, the user
// config's prefix, or that of the node program on $PATH), npm's own
// built-in npmrc, and then [DefaultRegistry]. Values may use ${VAR}. A
// project's .npmrc is not read. It only reads files; a missing one is
// skipped, an unreadable one is an error.
func LoadNPMConfig(e NPMEnv) (NPMConfig, error) {
	environ := e.Environ
	if environ == nil {
		environ = os.Environ()
	}
	getenv := func(k string) string {
		for _, kv := range environ {
			if name, v, ok := strings.Cut(kv, "="); ok && name == k {
				return v
			}
		}
		return ""
	}
	// npm_config_* variables, keys lower-cased and _ read as -, as npm
	// does.
	envCfg := map[string]string{}
	for _, kv := range environ {
		name, v, ok := strings.Cut(kv, "=")
		if ok && len(name) > len("npm_config_") && strings.EqualFold(name[:len("npm_config_")], "npm_config_") && v != "" {
			envCfg[strings.ReplaceAll(strings.ToLower(name[len("npm_config_"):]), "_", "-")] = v
		}
	}
	home := e.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	type layer struct {
		source string
		m      map[string]string
	}
	layers := []layer{{"environment", envCfg}}
	read := func(path string) error {
		m, err := readNPMRC(path, getenv)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		layers = append(layers, layer{path, m})
		return nil
	}
	user := envCfg["userconfig"]
	if user == "" && home != "" {
		user = filepath.Join(home, ".npmrc")
	}
	if user != "" {
		if err := read(expandHome(user, home)); err != nil {
			return NPMConfig{}, err
		}
	}
	get := func(key string) (string, string) {
		for _, l := range layers {
			if v, ok := l.m[key]; ok && v != "" {
				return v, l.source
			}
		}
		return "", ""
	}
	prefix, _ := get("prefix")
	if prefix == "" {
		prefix = nodePrefix()
	}
	if global, _ := get("globalconfig"); global != "" {
		if err := read(expandHome(global, home)); err != nil {
			return NPMConfig{}, err
		}
	} else {
		cands := e.GlobalConfigs
		if cands == nil {
			if prefix != "" {
				cands = append(cands, filepath.Join(prefix, "etc", "npmrc"))
			}
			cands = append(cands, "/usr/local/etc/npmrc", "/usr/etc/npmrc")
		}
		for _, c := range cands {
			if _, err := os.Stat(c); err == nil {
				if err := read(c); err != nil {
					return NPMConfig{}, err
				}
				break
			}
		}
	}
	if e.GlobalConfigs == nil && prefix != "" {
		// npm's built-in config, beside its own files.
		for _, c := range []string{filepath.Join(prefix, "lib", "node_modules", "npm", "npmrc"), "/usr/share/nodejs/npm/npmrc"} {
			if err := read(c); err != nil {
				return NPMConfig{}, err
			}
		}
	}

	cfg := NPMConfig{Registry: DefaultRegistry, Scoped: map[string]string{}, Sources: map[string]string{"registry": "default"}}
	if v, src := get("registry"); v != "" {
		cfg.Registry, cfg.Sources["registry"] = withSlash(v), src
	}
	for i := len(layers) - 1; i >= 0; i-- { // higher layers overwrite
		for k, v := range layers[i].m {
			if scope, ok := strings.CutSuffix(k, ":registry"); ok && strings.HasPrefix(scope, "@") && v != "" {
				cfg.Scoped[scope], cfg.Sources[k] = withSlash(v), layers[i].source
			}
		}
	}
	if v, src := get("cafile"); v != "" {
		cfg.CAFile, cfg.Sources["cafile"] = expandHome(v, home), src
	}
	if v, src := get("https-proxy"); v != "" {
		cfg.Proxy, cfg.Sources["https-proxy"] = v, src
	} else if v, src := get("proxy"); v != "" {
		cfg.Proxy, cfg.Sources["proxy"] = v, src
	}
	return cfg, nil
}

// readNPMRC reads an ini-style npmrc: key = value lines, ; and # comments,
// values optionally in double quotes (JSON strings) or single quotes, and
// ${VAR} replaced from the environment. Keys are kept as written.
func readNPMRC(path string, getenv func(string) string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("reading npm config %s: %w", path, err)
	}
	defer f.Close()
	m := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		s := strings.TrimSpace(sc.Text())
		if s == "" || s[0] == ';' || s[0] == '#' || s[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(s, "=")
		if !ok {
			continue // a bare key is a boolean flag; none matters here
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		m[expandEnv(k, getenv)] = expandEnv(v, getenv)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading npm config %s: %w", path, err)
	}
	return m, nil
}

// expandEnv replaces ${VAR} (not $VAR, as npm) with the variable's value.
func expandEnv(s string, getenv func(string) string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
	b.WriteString(s)
	return b.String()
}

func expandHome(p, home string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return p
}

func withSlash(u string) string {
	if !strings.HasSuffix(u, "/") {
		return u + "/"
	}
	return u
}

// nodePrefix returns npm's default prefix: the directory above the one
// that holds the node program on $PATH, or "" without node.
func nodePrefix() string {
	p, err := exec.LookPath("node")
	if err != nil {
		return ""
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return filepath.Dir(filepath.Dir(p))
}
