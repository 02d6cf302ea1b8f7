package configs_test

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/huimemory/huimemory/configs"
)

// docPath is the configuration reference, relative to this package.
const docPath = "../docs/configuration.md"

// TestDocumentedDefaults checks docs/configuration.md against the embedded
// defaults: every key of config.yaml has a row, every row names a key of
// config.yaml, and each row's default is the one config.yaml holds.
//
// A row is a table line of the form
//
//	| `section.key` | default | meaning |
//
// whose default is written as it renders in YAML: strings unquoted, the
// empty string as "", lists as [a, b], empty maps as {}.
func TestDocumentedDefaults(t *testing.T) {
	documented, err := readDocumentedDefaults(docPath)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	flatten("", configs.DefaultMap(), want)

	for _, key := range sortedKeys(want) {
		if _, ok := documented[key]; !ok {
			t.Errorf("%s: config.yaml has %s (default %s), but no row documents it; add | `%s` | %s | ... |",
				docPath, key, want[key], key, want[key])
		}
	}
	for _, key := range sortedKeys(documented) {
		if _, ok := want[key]; !ok {
			t.Errorf("%s: a row documents %s, which config.yaml does not have; remove the row or fix its name", docPath, key)
		}
	}
	tests := []struct{ key, doc, code string }{}
	for _, key := range sortedKeys(want) {
		if doc, ok := documented[key]; ok {
			tests = append(tests, struct{ key, doc, code string }{key, doc, want[key]})
		}
	}
	for _, tt := range tests {
		t.Run(tt.key, func(t *testing.T) {
			if diff := cmp.Diff(tt.code, tt.doc); diff != "" {
				t.Errorf("%s: the default of %s is %s in config.yaml but %s in the docs (-config.yaml +docs):\n%s",
					docPath, tt.key, tt.code, tt.doc, diff)
			}
		})
	}
}

// TestNormalise pins the string form that documented defaults are
// compared in.
func TestNormalise(t *testing.T) {
	tests := []struct {
		in   any
		want string
	}{
		{"turn", "turn"},
		{"", `""`},
		{"30s", "30s"},
		{true, "true"},
		{false, "false"},
		{64, "64"},
		{0, "0"},
		{-1, "-1"},
		{0.1, "0.1"},
		{0.01, "0.01"},
		{float64(3), "3"},
		{[]any{}, "[]"},
		{[]any{"a", "b"}, "[a, b]"},
		{[]any{1, ""}, `[1, ""]`},
		{map[string]any{}, "{}"},
		{nil, "null"},
	}
	for _, tt := range tests {
		if got := normalise(tt.in); got != tt.want {
			t.Errorf("normalise(%#v) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestFlatten pins how nested maps become dotted keys.
func TestFlatten(t *testing.T) {
	in := map[string]any{
		"mode":       "enhance",
		"extractors": []any{},
		"storage": map[string]any{
			"home":     "",
			"postgres": map[string]any{"dsn": "", "max_conns": 16},
		},
		"chunker": map[string]any{"options": map[string]any{}},
	}
	want := map[string]string{
		"mode":                       "enhance",
		"extractors":                 "[]",
		"storage.home":               `""`,
		"storage.postgres.dsn":       `""`,
		"storage.postgres.max_conns": "16",
		"chunker.options":            "{}",
	}
	got := map[string]string{}
	flatten("", in, got)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("flatten (-want +got):\n%s", diff)
	}
}

// TestParseRow pins which lines are rows and what they hold.
func TestParseRow(t *testing.T) {
	tests := []struct {
		line     string
		key, def string
		ok       bool
	}{
		{"| `mode` | enhance | the mode |", "mode", "enhance", true},
		{"| `storage.home` | \"\" | where |", "storage.home", `""`, true},
		{"| `server.tokens` | [] | tokens, `[{token, namespace}]` \\| more |", "server.tokens", "[]", true},
		{"|`retriever.top_k`|5|hits|", "retriever.top_k", "5", true},
		{"| key | default | meaning |", "", "", false},
		{"|---|---|---|", "", "", false},
		{"some prose with `storage.home` in it", "", "", false},
		{"| `a.b` | only two cells |", "", "", false},
	}
	for _, tt := range tests {
		key, def, ok := parseRow(tt.line)
		if key != tt.key || def != tt.def || ok != tt.ok {
			t.Errorf("parseRow(%q) = %q, %q, %v; want %q, %q, %v", tt.line, key, def, ok, tt.key, tt.def, tt.ok)
		}
	}
}

// readDocumentedDefaults returns the key → default of every row of the
// configuration reference, and an error for a key documented twice.
func readDocumentedDefaults(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the configuration reference: %w", err)
	}
	defer f.Close()
	rows := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		key, def, ok := parseRow(sc.Text())
		if !ok {
			continue
		}
		if _, dup := rows[key]; dup {
			return nil, fmt.Errorf("%s:%d: %s is documented twice", path, n, key)
		}
		rows[key] = def
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no rows of the form | `section.key` | default | meaning |", path)
	}
	return rows, nil
}

// parseRow reads a line of the form | `key` | default | meaning |. Only
// the first two cells matter, so the meaning may hold any text.
func parseRow(line string) (key, def string, ok bool) {
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "|") {
		return "", "", false
	}
	cells := strings.Split(strings.Trim(line, "|"), "|")
	if len(cells) < 3 {
		return "", "", false
	}
	first := strings.TrimSpace(cells[0])
	if len(first) < 3 || !strings.HasPrefix(first, "`") || !strings.HasSuffix(first, "`") {
		return "", "", false
	}
	return strings.Trim(first, "`"), strings.TrimSpace(cells[1]), true
}

// flatten writes every leaf of m into out under its dotted key. A map
// with keys is a section and is walked; an empty map is a leaf ({}).
func flatten(prefix string, m map[string]any, out map[string]string) {
	for k, v := range m {
		key := k
		if prefix != "" {
			key = prefix + "." + k
		}
		if sub, ok := v.(map[string]any); ok && len(sub) > 0 {
			flatten(key, sub, out)
			continue
		}
		out[key] = normalise(v)
	}
}

// normalise is the string form a default is compared in: strings as they
// are (the empty string as ""), bools and integers with %v, floats in
// their shortest form, lists as [a, b] and empty maps as {}.
func normalise(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		if x == "" {
			return `""`
		}
		return x
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = normalise(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case map[string]any:
		if len(x) == 0 {
			return "{}"
		}
		return fmt.Sprintf("%v", x)
	default:
		return fmt.Sprintf("%v", x)
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
