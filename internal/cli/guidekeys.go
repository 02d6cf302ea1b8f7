package cli

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"
)

// guideKeys are the keys of the config.yaml in HuiMemory's integration
// guide that HuiMemory-Go spells differently or does without. A file that
// uses them loads, with one warning line per key; a misspelt key is still
// an error (viper's UnmarshalExact catches it after this rewrite).
var guideKeys = []struct {
	section, old, new string
	// value rewrites the old value for the new key; nil keeps it.
	value func(any) (any, error)
	// why, for a key dropped with no new name, says why.
	why string
}{
	{section: "storage", old: "db_path", new: "home", value: func(v any) (any, error) {
		s, ok := v.(string)
		if !ok {
			return nil, fmt.Errorf("must be a path")
		}
		// The guide names the database file; HuiMemory-Go names the
		// folder that holds it (huimem.db, index/, sessions/).
		if ext := filepath.Ext(s); ext == ".db" || ext == ".sqlite" || ext == ".bolt" {
			return filepath.Dir(s), nil
		}
		return s, nil
	}},
	{section: "embedding", old: "model_path", new: "model_dir"},
	{section: "embedding", old: "dimension", new: "dim"},
	{section: "embedding", old: "device", why: "models run on the CPU here"},
	{section: "archive", old: "base_dir", why: "transcripts and archives live under storage.home/sessions"},
	{section: "archive", old: "compression", why: "archives are always zstd; archive.level sets the level", value: func(v any) (any, error) {
		if s, _ := v.(string); strings.EqualFold(s, "zstd") {
			return nil, nil
		}
		return nil, fmt.Errorf("%v is not supported: archives are zstd", v)
	}},
	{section: "retriever", old: "default_top_k", new: "top_k"},
}

// translateGuideKeys rewrites the integration guide's keys in a config
// file's YAML to HuiMemory-Go's, calling warn once for each.
func translateGuideKeys(data []byte, warn func(format string, args ...any)) ([]byte, error) {
	var doc map[string]any
	if err := yaml.Unmarshal(data, &doc); err != nil || doc == nil {
		return data, nil // viper reports the syntax error with its position
	}
	changed := false
	for _, k := range guideKeys {
		sec, ok := doc[k.section].(map[string]any)
		if !ok {
			continue
		}
		v, ok := sec[k.old]
		if !ok {
			continue
		}
		old := k.section + "." + k.old
		if k.value != nil {
			nv, err := k.value(v)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", old, err)
			}
			v = nv
		}
		delete(sec, k.old)
		changed = true
		if k.new == "" {
			warn("config: %s is ignored: %s", old, k.why)
			continue
		}
		nk := k.section + "." + k.new
		if _, both := sec[k.new]; both {
			return nil, fmt.Errorf("config: both %s and %s are set; keep %s", old, nk, nk)
		}
		sec[k.new] = v
		warn("config: %s is %s in HuiMemory-Go; please rename it", old, nk)
	}
	if !changed {
		return data, nil
	}
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
