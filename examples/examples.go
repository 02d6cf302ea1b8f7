// Package examples holds HuiMemory's runnable examples: quickstart/ has a
// sample conversation in the generic JSONL format, embedded here so that
// `huimem demo` runs with no files at all.
package examples

import _ "embed"

// Quickstart is quickstart/conversation.jsonl: five sessions of a user and
// an assistant, in Chinese and English, spread over 2026.
//
//go:embed quickstart/conversation.jsonl
var Quickstart []byte
