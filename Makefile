# The platform's one entry point. `make test` is what CI runs (.ci/run); `make run` starts it all.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

SERVICES := content orgboard renderevents
OAPI_PARTS := types server client spec
TOOLS_DIR := bin/tools
GO_TOOLS := oapi-codegen sqlc oasdiff golangci-lint
NPX := npx --no-install

# Every module of the workspace, for vet/lint/test (go.work lists them).
MODULES := gen pkg services/content services/orgboard services/renderevents specs e2e

.PHONY: help
help: ## List the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-18s %s\n", $$1, $$2}'

## ---- tools ---------------------------------------------------------------------------
# Each pinned Go tool has its own module under tools/<name>; the binary is rebuilt only when
# its go.mod/go.sum change.
$(TOOLS_DIR)/oapi-codegen: tools/go.mod tools/go.sum
	cd tools && GOWORK=off go build -o ../$@ github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen
$(TOOLS_DIR)/%: tools/%/go.mod tools/%/go.sum
	cd tools/$* && GOWORK=off go build -o ../../$@ $$(awk '/^tool /{print $$2; exit}' go.mod)
# The S3 server is a local stand-in for development and tests: built like make run's binaries
# (DEV_GCFLAGS, below), it compiles in about a third less time, and serves the tests as fast.
$(TOOLS_DIR)/versitygw: tools/versitygw/go.mod tools/versitygw/go.sum
	cd tools/versitygw && GOWORK=off go build -gcflags='$(DEV_GCFLAGS)' -o ../../$@ $$(awk '/^tool /{print $$2; exit}' go.mod)

node_modules/.package-lock.json: package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

# Headless Chromium for the browser test of every service's /docs (e2e/docs_test.go): Debian's
# package, installed when absent and apt is there. Without it the test skips, or fails under CI.
.PHONY: chromium
chromium:
	@if [ ! -x /usr/bin/chromium ] && command -v apt-get >/dev/null; then \
	  sudo=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$sudo apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; fi

.PHONY: tools
tools: $(addprefix $(TOOLS_DIR)/,$(GO_TOOLS)) node_modules/.package-lock.json chromium ## Install every pinned tool (idempotent)

# The S3 server the tests start (S3_SERVER: versitygw by default, or minio; scripts/lib.sh pins
# both). A target of its own so that `make test` builds it beside the tools, not after the gates.
.PHONY: s3-server
s3-server: ## Build the pinned S3 server the tests start (S3_SERVER=versitygw|minio; first time only)
	@bash -c '. scripts/lib.sh && s3_bin >/dev/null'

## ---- generation --------------------------------------------------------------------
# Redoc's standalone bundle, which every service serves at /docs, is copied from the pinned npm
# package into pkg/httpx/docsassets and committed, so `go build` needs no npm;
# pkg/httpx/docs_test.go fails when the copy differs from node_modules.
DOCS_ASSETS := pkg/httpx/docsassets
REDOC := node_modules/redoc

.PHONY: docs-assets
docs-assets: node_modules/.package-lock.json ## Copy the pinned Redoc bundle (and its licences) into pkg/httpx/docsassets
	cp $(REDOC)/bundles/redoc.standalone.js $(REDOC)/bundles/redoc.standalone.js.LICENSE.txt $(DOCS_ASSETS)/
	cp $(REDOC)/LICENSE $(DOCS_ASSETS)/LICENSE

.PHONY: generate
# --default-non-nullable=false: a request property with a default stays optional in the TypeScript
# types (the service fills the default in); responses mark what they always carry as required.
generate: tools docs-assets ## Regenerate everything under gen/ from specs/ and queries, and the docs assets
	@for s in $(SERVICES); do for p in $(OAPI_PARTS); do \
	  $(TOOLS_DIR)/oapi-codegen -config specs/codegen/$$s/$$p.yaml specs/openapi/$$s.yaml; done; done
	$(TOOLS_DIR)/sqlc generate -f sqlc.yaml
	cd tools && GOWORK=off go run ./eventgen -in ../specs/asyncapi/events.yaml -out ../gen/events
	cd tools && GOWORK=off go run ./genreadme -root .. -out ../gen/README.md
	@for s in $(SERVICES); do \
	  $(NPX) openapi-typescript specs/openapi/$$s.yaml -o gen/ts/$$s/src/schema.ts --silent \
	    --default-non-nullable=false; done
	@for s in $(SERVICES); do \
	  (cd tools && GOWORK=off go run ./sdkgen -spec ../specs/openapi/$$s.yaml -out ../gen/ts/$$s -npm-root ..); done

.PHONY: check-generated
check-generated: $(TOOLS_DIR)/oapi-codegen $(TOOLS_DIR)/sqlc node_modules/.package-lock.json ## Fail when gen/ differs from what the specs and queries produce (each differing, missing or extra file named)
	scripts/check-generated.sh

## ---- quality -------------------------------------------------------------------------
.PHONY: lint-specs
lint-specs: node_modules/.package-lock.json ## Lint the OpenAPI specs (Redocly recommended) and validate the AsyncAPI document
	$(NPX) redocly lint --config redocly.yaml specs/openapi/content.yaml specs/openapi/orgboard.yaml specs/openapi/renderevents.yaml
	SUPPRESS_NO_CONFIG_WARNING=1 ASYNCAPI_METRICS=false $(NPX) asyncapi validate specs/asyncapi/events.yaml --fail-severity warn

.PHONY: vet
vet: ## go vet every module
	go vet $(addsuffix /...,$(addprefix ./,$(MODULES)))

# golangci-lint type-checks the modules once and runs every analyzer of go vet on them (govet in
# .golangci.yml), but it leaves generated files out: go vet covers gen/, so nothing is vetted twice.
.PHONY: vet-generated
vet-generated:
	go vet ./gen/...

.PHONY: lint
lint: $(TOOLS_DIR)/golangci-lint vet-generated lint-specs ## go vet + golangci-lint + spec lint
	$(TOOLS_DIR)/golangci-lint run $(addsuffix /...,$(addprefix ./,$(MODULES)))

# BASE=<commit> gives the commit the specs are compared with (default: the merge-base of HEAD
# with main, else with origin/main); without one the check fails rather than pass unchecked.
.PHONY: breaking
breaking: $(TOOLS_DIR)/oasdiff ## Fail on a breaking spec change against the merge-base with main, unless the major version and its changelog section change with it
	BASE="$(BASE)" scripts/breaking.sh

.PHONY: changelog
changelog: tools ## Write the specs/CHANGELOG.md section of every spec whose info.version changed (from the diff against the base)
	BASE="$(BASE)" scripts/changelog.sh

## ---- build, test, run ----------------------------------------------------------------
.PHONY: build
# The binaries carry the release (git describe) and commit: /healthz and build_info report them.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo unknown)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null || echo unknown)
BUILDINFO := github.com/videotpl/platform/pkg/buildinfo
LDFLAGS := -X $(BUILDINFO).version=$(VERSION) -X $(BUILDINFO).revision=$(REVISION)

# GCFLAGS passes compiler flags to the three binaries' build (none: optimized, as released).
GCFLAGS ?=
# make run's binaries are built without optimizations and inlining, as a debugger wants them:
# a first build compiles about 30 % less (CPU time measured on the project machine: the three
# binaries 101 s against 144 s, the S3 server 62 s against 88 s), and a development run does
# not need the speed. make build, the images and the benchmarks stay optimized.
DEV_GCFLAGS := all=-N -l

build: ## Build the three binaries into bin/ (stamped with git describe)
	@for s in $(SERVICES); do go build -gcflags='$(GCFLAGS)' -ldflags="$(LDFLAGS)" -o bin/$$s ./services/$$s/cmd/$$s; done

# The service images from the one Dockerfile (SERVICE and its API port), stamped like make build.
IMAGE_PORTS := content:8081 orgboard:8082 renderevents:8083
IMAGE_TAG ?= dev

.PHONY: images
images: ## Build the three images with docker (videotpl/<service>:$(IMAGE_TAG), version from git describe)
	@for sp in $(IMAGE_PORTS); do s=$${sp%%:*}; p=$${sp##*:}; \
	  docker build --build-arg SERVICE=$$s --build-arg PORT=$$p --build-arg VERSION=$(VERSION) \
	    --build-arg REVISION=$(REVISION) -t videotpl/$$s:$(IMAGE_TAG) . || exit 1; done

.PHONY: deps
deps: ## Make sure PostgreSQL and RabbitMQ answer (start them if installed but stopped)
	scripts/deps.sh

# `make test` runs the gates and the installs side by side (a make -j of its own, each target's
# output printed whole when it ends): the Go tools, npm ci, Chromium and the S3 server build and download
# at once, each gate starts as soon as its own tools are there, and the tests start when every
# gate passed. TEST_JOBS bounds how many run at once.
TEST_JOBS ?= 4

.PHONY: test
test: ## What CI runs: generated code in sync, lint, spec changes, then every test on real servers
	@$(MAKE) --no-print-directory -j$(TEST_JOBS) --output-sync=target test-gates
	scripts/test.sh

# The longest installs first (make -j starts prerequisites in this order): the S3 server and
# golangci-lint compile for minutes, npm ci and apt mostly wait on the network.
.PHONY: test-gates
test-gates: s3-server $(TOOLS_DIR)/golangci-lint node_modules/.package-lock.json chromium tools check-generated lint breaking

.PHONY: test-only
test-only: ## Tests with -race on real servers, no generation or lint (TEST_PKGS=./pkg/... narrows them)
	scripts/test.sh

.PHONY: test-timings
test-timings: ## Where the last test run's time went: each package's time and the slowest tests (from bin/test-results.json)
	@[[ -s bin/test-results.json ]] || { echo "no bin/test-results.json: run make test or make test-only first" >&2; exit 1; }
	@cd tools && GOWORK=off go run ./testtimings summary -top $(or $(TOP),25) ../bin/test-results.json

.PHONY: run
# Only what running needs: the three binaries, then the S3 server (bin/tools/versitygw), which
# reuses the packages they share with it from the build cache; no lint tools, npm packages or
# browser.
run: ## Start the dependencies, an S3 server and the three services with demo data (Ctrl-C stops)
	@$(MAKE) --no-print-directory build GCFLAGS='$(DEV_GCFLAGS)'
	@$(MAKE) --no-print-directory s3-server
	scripts/run.sh

.PHONY: bench-content bench-content-uploads bench-orgboard bench-renderevents bench-webhooks bench-growth
bench-content bench-content-uploads bench-orgboard bench-renderevents bench-webhooks: build ## Benchmarks, each beside its ceiling (figures go to BENCHMARKS.md)
	scripts/$@.sh

bench-growth: build ## The read benchmarks at 1x, 10x and 100x their data: the cost of a page against the size of what it pages through
	scripts/bench-growth.sh

.PHONY: sdk
sdk: tools ## Build the TypeScript SDK packages under gen/ts
	scripts/sdk.sh

.PHONY: clean
clean: ## Remove build output and local data
	rm -rf bin .data
