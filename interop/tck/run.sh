#!/usr/bin/env bash
# Run the A2A 1.0 conformance kit (a2a-tck, branch 1.0-dev) against a server
# under test on a Debian 12 machine without PyPI.
#
# Required environment:
#   TCK_DIR   checkout (or git archive) of a2aproject/a2a-tck at 1.0-dev; never modified
#   SUT       base URL of the server under test; the kit GETs
#             $SUT/.well-known/agent-card.json and takes the interface URLs from the card
# Optional environment:
#   TCK_WORK      scratch directory (default /tmp/tck/work); the kit is copied to
#                 $TCK_WORK/a2a-tck afresh on every run and adapted there
#   TCK_LEVEL     must | should | may | all (default all)
#   TCK_BASELINE  file of expected failing test ids, passed to summarize.py
#   GOOGLE_PROTO_DIR  directory holding google/api/*.proto and google/rpc/*.proto;
#                 default: npm package google-proto-files@6.0.1 installed into $TCK_PROTO_CACHE
#   TCK_PROTO_CACHE   where that npm package is installed once (default $TCK_WORK/protos)
#   PY            Python interpreter that sees Debian's python3-* packages (default /usr/bin/python3)
# Extra arguments are passed to pytest (e.g. -k TestTaskLifecycle, -x).
#
# Local adaptations (see README.md), all done in the scratch copy:
#   A1 regenerate specification/generated/a2a_pb2.py with Debian's protoc
#   A2 generate google/api and google/rpc Python modules onto PYTHONPATH
#   A3 drop pytest minversion from pyproject.toml
#   A4 test only --transport=jsonrpc,http_json (no gRPC)
#   A5 call pytest directly, not run_tck.py
#   A6 bind the kit's webhook receiver to 127.0.0.1
#
# Output: $TCK_WORK/reports/junit.xml, $TCK_WORK/reports/compat*, a summary on stdout.
# Exit status: summarize.py's (1 on failures not in TCK_BASELINE, or on any failure
# without a baseline), 2 on setup errors.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PY=${PY:-/usr/bin/python3}
TCK_WORK=${TCK_WORK:-/tmp/tck/work}
TCK_LEVEL=${TCK_LEVEL:-all}

die() { echo "tck/run.sh: $*" >&2; exit 2; }

[[ -n "${TCK_DIR:-}" ]] || die "TCK_DIR is not set (a checkout of a2a-tck at branch 1.0-dev)"
[[ -n "${SUT:-}" ]] || die "SUT is not set (base URL of the server under test)"
[[ -f "$TCK_DIR/specification/a2a.proto" && -d "$TCK_DIR/tests/compatibility" ]] \
  || die "$TCK_DIR does not look like a2a-tck 1.0-dev (no specification/a2a.proto or tests/compatibility)"
command -v protoc >/dev/null || die "protoc not found (apt-get install protobuf-compiler)"
"$PY" -c 'import pytest, pytest_asyncio, httpx, jsonschema, google.protobuf, grpc' 2>/dev/null \
  || die "$PY lacks pytest/pytest-asyncio/httpx/jsonschema/protobuf/grpcio (see README.md for the apt-get line)"
case "$TCK_LEVEL" in
  must | should | may) level_args=(-m "$TCK_LEVEL") ;;
  all) level_args=() ;;
  *) die "TCK_LEVEL must be must, should, may or all, not $TCK_LEVEL" ;;
esac

mkdir -p "$TCK_WORK"
TCK_WORK=$(cd "$TCK_WORK" && pwd)
kit=$TCK_WORK/a2a-tck
gen=$TCK_WORK/gen
reports=$TCK_WORK/reports

# Scratch copy, fresh every run, so the adaptations below always start from the
# pristine kit and running twice gives the same tree.
rm -rf "$kit" "$gen"
mkdir -p "$kit" "$gen" "$reports"
tar -C "$TCK_DIR" --exclude=.git -cf - . | tar -C "$kit" -xf -

# google/api and google/rpc protos.
if [[ -z "${GOOGLE_PROTO_DIR:-}" ]]; then
  cache=${TCK_PROTO_CACHE:-$TCK_WORK/protos}
  GOOGLE_PROTO_DIR=$cache/node_modules/google-proto-files
  if [[ ! -f "$GOOGLE_PROTO_DIR/google/rpc/error_details.proto" ]]; then
    command -v npm >/dev/null || die "npm not found and GOOGLE_PROTO_DIR not set"
    echo "tck/run.sh: installing google-proto-files@6.0.1 into $cache" >&2
    mkdir -p "$cache"
    npm install --prefix "$cache" --no-audit --no-fund --save-exact google-proto-files@6.0.1 >&2
  fi
fi
for f in google/api/annotations.proto google/api/client.proto google/api/field_behavior.proto \
  google/rpc/status.proto google/rpc/error_details.proto; do
  [[ -f "$GOOGLE_PROTO_DIR/$f" ]] || die "$GOOGLE_PROTO_DIR/$f is missing"
done

# A2: Python modules for google/api and google/rpc. No __init__.py: Debian's
# `google` is a namespace package, so these load beside google.protobuf.
(cd "$GOOGLE_PROTO_DIR" && protoc -I . --python_out="$gen" \
  google/api/annotations.proto google/api/http.proto google/api/client.proto \
  google/api/field_behavior.proto google/api/launch_stage.proto \
  google/rpc/status.proto google/rpc/error_details.proto)

# A1: a2a_pb2.py for the installed protobuf runtime. The gRPC stub
# (a2a_pb2_grpc.py) is kept; it is imported but never used (A4).
protoc -I "$kit/specification" -I "$GOOGLE_PROTO_DIR" \
  --python_out="$kit/specification/generated" "$kit/specification/a2a.proto"

# A3: pytest minversion (Debian has 7.2; -o minversion= does not override it).
sed -i '/^minversion[[:space:]]*=/d' "$kit/pyproject.toml"
! grep -q '^minversion' "$kit/pyproject.toml" || die "A3 failed: minversion still set in pyproject.toml"

# A6: loopback-only webhook receiver.
sed -i 's/host: str = "0\.0\.0\.0"/host: str = "127.0.0.1"/' "$kit/tck/webhook/server.py"
grep -q 'host: str = "127.0.0.1"' "$kit/tck/webhook/server.py" \
  || die "A6 failed: tck/webhook/server.py no longer has the expected host default"

# Import check: the adapted kit loads with this interpreter.
(cd "$kit" && PYTHONPATH="$gen" "$PY" -c 'from specification.generated import a2a_pb2; from google.rpc import error_details_pb2, status_pb2') \
  || die "adapted kit does not import (A1/A2)"

# A4 + A5: pytest directly, two transports.
echo "tck/run.sh: pytest against $SUT (level $TCK_LEVEL)" >&2
set +e
(cd "$kit" && PYTHONPATH="$gen:$here" "$PY" -m pytest tests/compatibility/ \
  -p tck_junit_props \
  --sut-host="$SUT" --transport=jsonrpc,http_json --webhook-host 127.0.0.1 \
  "${level_args[@]}" \
  -q -p no:cacheprovider --tb=short -rfEs \
  --compatibility-report="$reports/compat" --junitxml="$reports/junit.xml" "$@")
pytest_rc=$?
set -e
echo "tck/run.sh: pytest exit status $pytest_rc; junit XML in $reports/junit.xml" >&2
[[ -f "$reports/junit.xml" ]] || die "pytest wrote no junit XML"
echo
baseline_args=()
[[ -n "${TCK_BASELINE:-}" ]] && baseline_args=(--baseline "$TCK_BASELINE")
exec "$PY" "$here/summarize.py" "$reports/junit.xml" "${baseline_args[@]}"
