package cli

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/huimemory/huimemory/core"
	"github.com/huimemory/huimemory/plugins/host"
)

func (a *App) configCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration (defaults, file, environment and flags merged)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			var doc yaml.Node
			if err := doc.Encode(cfg); err != nil {
				return fmt.Errorf("encoding the configuration: %w", err)
			}
			commentEmbedder(&doc, a.embedder)
			enc := yaml.NewEncoder(a.Stdout)
			enc.SetIndent(2)
			return enc.Encode(&doc)
		},
	}
}

// commentEmbedder puts on the embedding.name line of doc, the encoded
// configuration, which embedder runs and why when HuiMemory chose it:
//
//	name: hash # auto: fast for any language; set embedding.name: use-lite for English semantic vectors
func commentEmbedder(doc *yaml.Node, choice host.EmbedderChoice) {
	if !choice.Auto {
		return
	}
	if name := mappingValue(mappingValue(doc, "embedding"), "name"); name != nil {
		name.LineComment = "auto: " + choice.Reason
	}
}

// mappingValue returns the value of key in the mapping node m (or in the
// mapping a document node holds), or nil.
func mappingValue(m *yaml.Node, key string) *yaml.Node {
	if m != nil && m.Kind == yaml.DocumentNode && len(m.Content) == 1 {
		m = m.Content[0]
	}
	if m == nil || m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

// envPrefix starts every environment variable HuiMemory reads.
const envPrefix = "HUIMEM_"

// otherEnv are the HUIMEM_ variables that are not configuration keys but
// are read elsewhere: by the CLI, the plugins' handshake, the model
// fetcher, the tests and benchmarks, and the documentation's examples.
var otherEnv = []string{
	"HUIMEM_DEBUG",          // stack traces and plugin stderr (main.go, plugin.go)
	"HUIMEM_CPUPROFILE",     // write a CPU profile of the command (main.go)
	"HUIMEM_PEAK_RSS_FILE",  // write the process's peak RSS at exit (main.go, huimem-bench cold)
	"HUIMEM_MODELS",         // where model weights live (models, use-lite)
	"HUIMEM_PLUGIN",         // the go-plugin magic cookie of plugin processes
	"HUIMEM_TOKEN",          // the bearer token in docs/mcp.md's examples
	"HUIMEM_NET_TESTS",      // tests that use the network
	"HUIMEM_BENCH_LARGE",    // the large benchmarks
	"HUIMEM_BENCH_POOL",     // core/vector's pool-depth benchmarks
	"HUIMEM_REQUIRE_MODELS", // tests that must find the model weights
	"HUIMEM_REQUIRE_SHARED",
	"HUIMEM_SHARED",
}

// otherEnvPrefixes start further variables that are not configuration
// keys (test-only settings).
var otherEnvPrefixes = []string{"HUIMEM_TEST_"}

// configKeys lists every configuration key, such as "retriever.top_k",
// from the mapstructure tags of core.Config.
func configKeys() []string {
	var keys []string
	var walk func(t reflect.Type, prefix string)
	walk = func(t reflect.Type, prefix string) {
		for f := range t.Fields() {
			tag := f.Tag.Get("mapstructure")
			name, opts, _ := strings.Cut(tag, ",")
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			switch {
			case strings.Contains(opts, "squash"):
				walk(ft, prefix)
			case name == "" || name == "-":
			case ft.Kind() == reflect.Struct && ft != reflect.TypeFor[time.Time]():
				walk(ft, prefix+name+".")
			default:
				keys = append(keys, prefix+name)
			}
		}
	}
	walk(reflect.TypeFor[core.Config](), "")
	slices.Sort(keys)
	return keys
}

// envName is the environment variable of a configuration key:
// retriever.top_k is HUIMEM_RETRIEVER_TOP_K.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// checkEnv reports a HUIMEM_ variable in environ (KEY=value entries) that
// looks like a configuration key, HUIMEM_<SECTION>_..., but names none, as
// a [core.ConfigError] naming the variable and, when one is close, the key
// it probably meant. Variables that name no section, and those in
// [otherEnv], are left alone.
func checkEnv(environ []string) error {
	keys := configKeys()
	known := map[string]string{} // variable → key
	sections := map[string]bool{}
	for _, k := range keys {
		known[envName(k)] = k
		sec, _, _ := strings.Cut(k, ".")
		sections[strings.ToUpper(sec)] = true
	}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || known[name] != "" || slices.Contains(otherEnv, name) {
			continue
		}
		if slices.ContainsFunc(otherEnvPrefixes, func(p string) bool { return strings.HasPrefix(name, p) }) {
			continue
		}
		first, _, _ := strings.Cut(strings.TrimPrefix(name, envPrefix), "_")
		best, key := closestEnv(name, known)
		if !looksLikeSection(first, sections) && best == "" {
			continue
		}
		msg := "unknown environment variable: no setting has this name"
		if best != "" {
			msg = fmt.Sprintf("unknown environment variable; did you mean %s (%s)?", best, key)
		}
		return &core.ConfigError{Key: name, Msg: msg}
	}
	return nil
}

// looksLikeSection reports whether word is a configuration section's name
// or a likely misspelling of one (RETREIVER, STORGE).
func looksLikeSection(word string, sections map[string]bool) bool {
	if sections[word] {
		return true
	}
	for s := range sections {
		if len(s) >= 5 && levenshtein(word, s) <= max(1, len(s)/4) {
			return true
		}
	}
	return false
}

// closestEnv returns the known variable nearest to name, and its key, if
// it is close enough to be a likely misspelling, or if name is a known
// variable without its section (HUIMEM_HOME for HUIMEM_STORAGE_HOME).
func closestEnv(name string, known map[string]string) (string, string) {
	var suffixed []string
	for v := range known {
		if strings.HasSuffix(v, "_"+strings.TrimPrefix(name, envPrefix)) {
			suffixed = append(suffixed, v)
		}
	}
	if len(suffixed) > 0 {
		slices.Sort(suffixed)
		return suffixed[0], known[suffixed[0]]
	}
	best, bestD := "", 0
	for v := range known {
		d := levenshtein(name, v)
		if best == "" || d < bestD || d == bestD && v < best {
			best, bestD = v, d
		}
	}
	if bestD > max(2, len(name)/5) {
		return "", ""
	}
	return best, known[best]
}

// levenshtein is the edit distance between a and b, in bytes.
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
