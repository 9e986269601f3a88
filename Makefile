# zenbrain — `make help` lists the targets.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

BIN        := $(CURDIR)/bin
SQLC       := $(BIN)/sqlc
ZBCTL      := $(BIN)/zbctl
ZBWORKER   := $(BIN)/zbworker
GOLANGCI   := $(BIN)/golangci-lint
GOLANGCI_VERSION := v2.15.0
# Fuzz budgets are execution counts (target:count below): a duration (-fuzztime=5s) trips Go
# 1.26's fuzz-coordinator race (golang/go#75804, fixed in Go 1.27) that fails a target with a bare
# "context deadline exceeded" on a loaded machine. FUZZTIME, when set (e.g. 5m or 100000x),
# replaces every target's budget.
FUZZTIME   ?=
export PATH := $(BIN):$(PATH)

FUZZ_TARGETS := \
	./algorithms/textproc:FuzzTokens:20000 \
	./algorithms/retrieval:FuzzClassify:20000 \
	./algorithms/emotion:FuzzTag:20000 \
	./pma:FuzzEditText:20000 \
	./integration/reliability:FuzzStore:300 \
	./integration/reliability:FuzzRecall:300 \
	./integration/reliability:FuzzImport:300

.PHONY: help
help: ## Show this help
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z0-9_\/-]+:.*## / {printf "  \033[36m%-18s\033[0m %s\n", $$1, $$2}' $(MAKEFILE_LIST)

.PHONY: deps
deps: ## Install PostgreSQL >= 15, pgvector >= 0.8 and the Go tools (idempotent)
	@./scripts/deps.sh

.PHONY: build
build: ## Build zbctl and zbworker into bin/
	@mkdir -p $(BIN)
	go build -o $(ZBCTL) ./cmd/zbctl
	go build -o $(ZBWORKER) ./cmd/zbworker

.PHONY: run
run: deps build ## Run zenbrain on the embedded database (.zb/): migrations, demo memories, zbworker with metrics and River UI
	./scripts/run.sh

.PHONY: db/up
db/up: build ## Start the embedded dev database and apply migrations
	$(ZBCTL) dev up

.PHONY: db/down
db/down: build ## Stop the embedded dev database
	$(ZBCTL) dev down

.PHONY: db/reset
db/reset: build ## Delete the embedded dev database and create it anew
	$(ZBCTL) dev down --destroy
	$(ZBCTL) dev up

.PHONY: generate
generate: ## Regenerate db/ from sql/ with sqlc
	$(SQLC) generate

.PHONY: verify
verify: ## Fail when generated code is stale, a released migration changed, or code is unformatted
	$(SQLC) diff
	$(SQLC) vet
	go test -count=1 ./sql/schema/
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt would change:"; echo "$$unformatted"; exit 1; fi

.PHONY: release-migrations
release-migrations: ## Record the current migrations as released (their hashes become immutable)
	cd sql/schema && sha256sum 0*.sql > released.sum

.PHONY: vet
vet: ## go vet
	go vet ./...

.PHONY: test/unit
test/unit: ## Tests with the race detector (integration tests included; they start their own PostgreSQL)
	go test -race -count=1 -timeout 15m ./...

.PHONY: test/fuzz
test/fuzz: ## Run every fuzz target for its execution budget (FUZZTIME=5m or =100000x overrides)
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; rest=$${t#*:}; fn=$${rest%%:*}; budget=$${rest#*:}x; \
		[ -n "$(FUZZTIME)" ] && budget="$(FUZZTIME)"; \
		echo "fuzz $$fn ($$pkg) for $$budget"; \
		go test -run='^$$' -fuzz="^$$fn\$$" -fuzztime=$$budget $$pkg; \
	done

.PHONY: test
test: deps vet lint test/unit test/fuzz verify ## Everything CI runs: deps, vet, lint, tests with -race, fuzzing, verify

# deps installs the zb_lexical extension, so under make test its tests fail rather than skip when
# it is missing (unless ZB_SKIP_PG=1: a server you manage may lack it).
test: export ZB_REQUIRE_ZB_LEXICAL ?= $(if $(filter 1,$(ZB_SKIP_PG)),0,1)

.PHONY: test/race
test/race: test/unit ## Alias of test/unit

.PHONY: lint
lint: ## golangci-lint (installed into bin/ on first use)
	@[ -x $(GOLANGCI) ] && $(GOLANGCI) version 2>/dev/null | grep -q "$(GOLANGCI_VERSION:v%=%)" || \
		GOBIN=$(BIN) go install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_VERSION)
	$(GOLANGCI) run ./...

.PHONY: bench
bench: ## Go benchmarks
	go test -run='^$$' -bench=. -benchmem ./...

.PHONY: clean
clean: ## Remove build outputs (not the dev database)
	rm -f $(ZBCTL) $(ZBWORKER)
