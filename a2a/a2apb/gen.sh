#!/usr/bin/env bash
# gen.sh regenerates a2a/a2apb/a2a.pb.go from the pinned A2A 1.0.1 proto.
#
# Usage (from anywhere; paths are resolved against the repository root):
#
#   a2a/a2apb/gen.sh                 # proto from $A2A_PROTO_DIR, else ../shared/spec, else download
#   A2A_PROTO_DIR=/path/to/spec a2a/a2apb/gen.sh
#   A2A_PROTO_DOWNLOAD=1 a2a/a2apb/gen.sh   # force the download of the tagged file
#
# Inputs:
#   A2A_PROTO_DIR       directory holding a2a.proto and google/api/*.proto
#                       (default: ../shared/spec relative to the repository root, when it exists)
#   A2A_PROTO_URL       where to download a2a.proto from when no local copy is used
#                       (default: specification/a2a.proto of a2aproject/A2A at tag v1.0.1)
#   GOOGLEAPIS_URL      base URL for google/api/*.proto when downloading
#                       (default: googleapis at the commit the spec digest names)
#   PROTOBUF_INCLUDE    directory holding google/protobuf/*.proto
#                       (default: /usr/include, Debian's libprotobuf-dev)
#   PROTOC              protoc binary (default: protoc on PATH; Debian's protobuf-compiler)
#
# The proto's sha256 is checked before anything is generated, so a drifted or
# tampered copy never reaches the repository.
set -euo pipefail

readonly A2A_TAG=v1.0.1
readonly A2A_SHA256=e195bf96ab630c69797851970203e1b2b6b19528f2e9803b7d904b91a5104016
readonly PROTOC_GEN_GO_VERSION=v1.36.12
readonly GO_PACKAGE=github.com/a2a-mcp-bridge/bridge/a2a/a2apb
readonly GOOGLEAPIS_COMMIT=f8291d2b89f0017ab078a4c7378069bae5686f6f

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here"

PROTOC="${PROTOC:-protoc}"
PROTOBUF_INCLUDE="${PROTOBUF_INCLUDE:-/usr/include}"
A2A_PROTO_URL="${A2A_PROTO_URL:-https://raw.githubusercontent.com/a2aproject/A2A/${A2A_TAG}/specification/a2a.proto}"
GOOGLEAPIS_URL="${GOOGLEAPIS_URL:-https://raw.githubusercontent.com/googleapis/googleapis/${GOOGLEAPIS_COMMIT}}"

die() { echo "a2apb/gen.sh: $*" >&2; exit 1; }

command -v "$PROTOC" >/dev/null || die "protoc not found (Debian: apt-get install protobuf-compiler libprotobuf-dev)"
[ -f "$PROTOBUF_INCLUDE/google/protobuf/struct.proto" ] ||
	die "google/protobuf/*.proto not found under $PROTOBUF_INCLUDE (Debian: apt-get install libprotobuf-dev)"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Locate or download the proto.
if [ -z "${A2A_PROTO_DOWNLOAD:-}" ] && [ -z "${A2A_PROTO_DIR:-}" ] && [ -f "$root/../shared/spec/a2a.proto" ]; then
	A2A_PROTO_DIR="$root/../shared/spec"
fi
if [ -z "${A2A_PROTO_DOWNLOAD:-}" ] && [ -n "${A2A_PROTO_DIR:-}" ]; then
	case "$A2A_PROTO_DIR" in /*) ;; *) A2A_PROTO_DIR="$root/$A2A_PROTO_DIR" ;; esac
	[ -f "$A2A_PROTO_DIR/a2a.proto" ] || die "no a2a.proto in $A2A_PROTO_DIR"
	src="$A2A_PROTO_DIR"
	echo "a2apb/gen.sh: using $src/a2a.proto" >&2
else
	src="$work/spec"
	mkdir -p "$src/google/api"
	echo "a2apb/gen.sh: downloading $A2A_PROTO_URL" >&2
	curl -fsSL --proto '=https' -o "$src/a2a.proto" "$A2A_PROTO_URL" || die "download of a2a.proto failed"
	for f in annotations http client field_behavior launch_stage; do
		curl -fsSL --proto '=https' -o "$src/google/api/$f.proto" "$GOOGLEAPIS_URL/google/api/$f.proto" ||
			die "download of google/api/$f.proto failed"
	done
fi

got="$(sha256sum "$src/a2a.proto" | cut -d' ' -f1)"
[ "$got" = "$A2A_SHA256" ] || die "a2a.proto sha256 is $got, want $A2A_SHA256 (A2A $A2A_TAG)"
for f in annotations http client field_behavior launch_stage; do
	[ -f "$src/google/api/$f.proto" ] || die "missing google/api/$f.proto next to a2a.proto"
done

# protoc-gen-go at the pinned version: use the one on PATH or in GOBIN/GOPATH
# if it is that version, else install it into a temporary GOBIN.
plugin=""
for cand in "$(command -v protoc-gen-go 2>/dev/null || true)" "$(go env GOBIN)/protoc-gen-go" "$(go env GOPATH)/bin/protoc-gen-go"; do
	if [ -x "$cand" ] && [ "$("$cand" --version 2>/dev/null)" = "protoc-gen-go $PROTOC_GEN_GO_VERSION" ]; then
		plugin="$cand"
		break
	fi
done
if [ -z "$plugin" ]; then
	echo "a2apb/gen.sh: installing protoc-gen-go@$PROTOC_GEN_GO_VERSION" >&2
	GOBIN="$work/bin" go install "google.golang.org/protobuf/cmd/protoc-gen-go@$PROTOC_GEN_GO_VERSION"
	plugin="$work/bin/protoc-gen-go"
fi

"$PROTOC" \
	--plugin=protoc-gen-go="$plugin" \
	-I "$src" -I "$PROTOBUF_INCLUDE" \
	--go_out="$work" \
	--go_opt=paths=source_relative \
	--go_opt="Ma2a.proto=$GO_PACKAGE;a2apb" \
	a2a.proto

mv "$work/a2a.pb.go" "$out/a2a.pb.go"
echo "a2apb/gen.sh: wrote ${out#"$root"/}/a2a.pb.go" >&2
