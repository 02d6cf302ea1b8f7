// Package hash is HuiMemory's zero-setup embedder: character n-gram feature
// hashing into a fixed number of dimensions, L2-normalised.
//
// It needs no model and no network, works the same for Chinese and English,
// and is deterministic across machines. Its vectors capture shared words and
// word pieces, not meaning; use a semantic embedder (use-lite, or an
// OpenAI-compatible server) for that.
//
// Features, each hashed with FNV-1a into a signed bucket:
//   - Latin, digit and other non-CJK words: the lower-cased word (weight 1)
//     and its stem with one common suffix stripped (weight 1), which catches
//     word forms such as "deploy"/"deployed";
//   - CJK runs: each character (weight 0.5) and each pair of adjacent
//     characters (weight 1).
//
// A short list of English function words is skipped. Term weights are
// sub-linear (1 + log tf).
package hash
