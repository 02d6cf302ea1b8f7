// Package configs holds HuiMemory's default configuration, config.yaml,
// embedded so that the huimem binary runs with no file at all.
package configs

import _ "embed"

// Default is the content of config.yaml: every setting with its documented
// default.
//
//go:embed config.yaml
var Default []byte
