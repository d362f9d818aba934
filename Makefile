# Coltype Lab. `make test` is the README's test command and what CI runs.
GO ?= go
FUZZTIME ?= 5s
# Each decoder of untrusted bytes has a fuzz target; CI runs each briefly.

.PHONY: test vet unit fuzz bench demo build

test: vet unit fuzz

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# Each fuzz target runs for FUZZTIME; see .ci/fuzz for why one outcome is retried.
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash .ci/fuzz

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

demo:
	$(GO) run ./cmd/lab demo

build:
	$(GO) build -o lab ./cmd/lab
