# a2a-mcp-bridge — run `make help` for the targets.
SHELL := /bin/bash
GO ?= go
PKGS ?= ./...
FUZZTIME ?= 10s
BENCHTIME ?= 1s
BENCHOUT ?= bench/out
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/a2a-mcp-bridge/bridge/gateway.Version=$(VERSION)
# The release build: what the Dockerfile runs (make static) and make test checks.
STATIC_LDFLAGS := -s -w $(LDFLAGS)
# Build tags for test-go and interop (interop adds its own tag). STDLIB_TAGS
# switch every performance trick back to the standard library
# (docs/performance.md); test-stdlib runs the tests with them.
TAGS ?=
STDLIB_TAGS := bridge_nofastjson bridge_nosserelease bridge_noh1pool bridge_nomcpreader

.PHONY: help build static test test-go test-stdlib lint fuzz proto bench bench-micro demo interop interop-deps

help: ## Show this help
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk 'BEGIN {FS = ":.*## "}; {printf "  %-14s %s\n", $$1, $$2}'

build: ## Build bin/bridge
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/bridge ./cmd/bridge

static: ## Build bin/bridge-static as the Dockerfile does (CGO_ENABLED=0, -trimpath) and check that it is static
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(STATIC_LDFLAGS)" -o bin/bridge-static ./cmd/bridge
	@$(GO) version -m bin/bridge-static | grep -q 'CGO_ENABLED=0' || { echo "bin/bridge-static: not built with CGO_ENABLED=0"; exit 1; }
	@if command -v file >/dev/null; then file bin/bridge-static | grep -q 'statically linked' || { file bin/bridge-static; echo "bin/bridge-static: not statically linked"; exit 1; }; fi
	@bin/bridge-static version >/dev/null
	@echo "bin/bridge-static: static"

test: test-go static interop test-stdlib ## Run every test with -race (unit, integration, interop) on the default paths and with every performance trick off, and the static release build

test-go: ## Run the Go tests with -race (PostgreSQL/Redis tests need BRIDGE_TEST_POSTGRES_URL/BRIDGE_TEST_REDIS_URL; TAGS=… build tags)
	$(GO) vet -tags '$(TAGS)' $(PKGS)
	$(GO) test -race -count=1 -timeout 20m -tags '$(TAGS)' $(PKGS)
	$(GO) test -count=1 -tags '$(TAGS)' -run 'ShareACommit' ./a2a/store/ # scheduling tests, which -race would randomize
	$(GO) test -count=1 -tags '$(TAGS)' -run 'AllocateNothing' ./internal/strictjson/ # allocation counts, which -race would change

test-stdlib: interop-deps ## The Go tests and the interop tests with every performance trick off (STDLIB_TAGS: the standard-library paths)
	$(MAKE) --no-print-directory test-go TAGS='$(STDLIB_TAGS)'
	$(GO) test -race -count=1 -tags 'interop $(STDLIB_TAGS)' -timeout 15m ./interop/...

# golangci-lint, pinned; installed into $(GOLANGCI_BIN) when missing (.golangci.yml says what runs).
GOLANGCI_LINT_VERSION ?= v2.15.0
GOLANGCI_BIN ?= $(shell $(GO) env GOPATH)/bin
GOLANGCI_LINT := $(GOLANGCI_BIN)/golangci-lint

lint: ## gofmt, go vet and golangci-lint (.golangci.yml; installs the pinned version when missing)
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	@if ! $(GOLANGCI_LINT) version 2>/dev/null | grep -q "version $(GOLANGCI_LINT_VERSION:v%=%)"; then \
	  echo "== installing golangci-lint $(GOLANGCI_LINT_VERSION)"; \
	  GOBIN=$(GOLANGCI_BIN) $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	fi
	$(GOLANGCI_LINT) run ./...

fuzz: ## Run every fuzz target for FUZZTIME each (default 10s)
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz' || true); do \
	    echo "== $$pkg $$f"; $(GO) test -run '^$$' -fuzz "^$$f\$$" -fuzztime $(FUZZTIME) $$pkg; \
	  done; \
	done

proto: ## Regenerate a2a/a2apb from the pinned A2A 1.0.1 proto (A2A_PROTO_DIR=… for a local copy)
	a2a/a2apb/gen.sh

bench: ## bridge serve on every store and its translation paths beside direct calls and nginx; writes $(BENCHOUT)/report.md (bench/README.md; BENCH_TAGS=…, BASE_TAGS=… to measure a trick off)
	BENCHOUT=$(BENCHOUT) GO=$(GO) BENCH_TAGS='$(BENCH_TAGS)' BASE_TAGS='$(BASE_TAGS)' bench/run.sh

bench-micro: ## Every package's Go benchmarks; writes $(BENCHOUT)/micro.txt
	@mkdir -p $(BENCHOUT)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(PKGS) | tee $(BENCHOUT)/micro.txt

demo: ## Run the demo agent on the embedded defaults (ADDR=127.0.0.1:8080)
	$(GO) run ./cmd/bridge demo --addr $${ADDR:-127.0.0.1:8080}

interop-deps: ## Install the pinned npm peers of the interop tests
	@set -e; for d in $$(dirname $$(git ls-files 'interop/*/package-lock.json')); do \
	  echo "== npm ci in $$d"; (cd $$d && npm ci --no-audit --no-fund --loglevel=error); \
	done

interop: interop-deps ## Interop tests against software we did not write (npm peers, pinned; TAGS=… more build tags)
	$(GO) test -race -count=1 -tags 'interop $(TAGS)' -timeout 15m ./interop/...
