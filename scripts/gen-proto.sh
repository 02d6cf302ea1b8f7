#!/usr/bin/env bash
# gen-proto.sh regenerates plugins/internal/pb from the plugin protocol's
# .proto files under plugins/proto. The generated code is committed, so
# neither the build nor CI runs this; run it after changing a .proto file.
#
# Needs protoc (Debian: apt-get install -y protobuf-compiler) and the two Go
# generators at the versions the committed code was made with:
#
#   go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
#   go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"
protoc -I plugins/proto \
	--go_out=. --go_opt=module=github.com/huimemory/huimemory \
	--go-grpc_out=. --go-grpc_opt=module=github.com/huimemory/huimemory \
	plugins/proto/huimem/plugin/v1/*.proto
