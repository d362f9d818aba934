# Coltype Lab. `make test` is the README's test command and what CI runs.
GO ?= go
FUZZTIME ?= 5s
# Each decoder of untrusted bytes has a fuzz target; CI runs each briefly.
FUZZ_TARGETS := $(shell grep -rl --include='*_test.go' '^func Fuzz' . 2>/dev/null | xargs -r dirname | sort -u)

.PHONY: test vet unit fuzz bench demo build

test: vet unit fuzz

vet:
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

# go test allows one -fuzz pattern per package, so run each target on its own.
fuzz:
	@set -e; for dir in $(FUZZ_TARGETS); do \
	  for target in $$(grep -h '^func Fuzz' $$dir/*_test.go | sed 's/func \(Fuzz[A-Za-z0-9_]*\).*/\1/'); do \
	    echo "fuzz $$dir $$target ($(FUZZTIME))"; \
	    $(GO) test -run='^$$' -fuzz="^$$target$$" -fuzztime=$(FUZZTIME) -fuzzminimizetime=2s $$dir; \
	  done; \
	done

bench:
	$(GO) test -run='^$$' -bench=. -benchmem ./...

demo:
	$(GO) run ./cmd/lab demo

build:
	$(GO) build -o lab ./cmd/lab
