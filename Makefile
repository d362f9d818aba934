# Coltype Lab. `make test` is the README's test command and what CI runs.
GO ?= go
FUZZTIME ?= 5s
# bash with pipefail: `unit` pipes go test into its summary.
SHELL := /bin/bash
.SHELLFLAGS := -o pipefail -c
# Each decoder of untrusted bytes has a fuzz target; CI runs each briefly.

.PHONY: test vet unit fuzz bench demo build

test: vet unit fuzz

vet:
	$(GO) vet ./...

# The summary prints what go test prints, then the skipped tests with their
# reasons (internal/testsummary), so a run that skipped the conformance data or
# a peer says so. cmd/lab's suite takes 5-7 minutes on 2 cores and past go
# test's default 10 on a loaded machine; speed lives in benchmarks (DESIGN.md),
# so a slow machine must not fail the tests.
unit:
	$(GO) build -o .testsummary ./internal/testsummary
	$(GO) test -count=1 -timeout 30m -json ./... | ./.testsummary; status=$$?; rm -f .testsummary; exit $$status

# Each fuzz target runs for FUZZTIME; see .ci/fuzz for why one outcome is retried.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash .ci/fuzz

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

demo:
	$(GO) run ./cmd/lab demo

build:
	$(GO) build -o lab ./cmd/lab
