# streamerd: build, test, benchmark, fuzz and run.
# `make test` is what CI runs (through .ci/run); `make run` starts the daemon
# on the embedded default configuration.

GO        ?= go
SIMD      := GOEXPERIMENT=simd
BIN       := bin
FUZZTIME  ?= 20s
BENCHTIME ?= 1s
CONFIG    ?= configs/app.toml

.PHONY: all build test fmt-check vet unit race noalloc simd-test portable bench-smoke bench rtcompare fuzz run check soak soak-load clean

all: build

# Stamp the VCS revision into the binaries (streamerd -version) when git
# can read the checkout, whatever GOFLAGS says.
BUILDVCS  := $(shell git rev-parse --git-dir >/dev/null 2>&1 && echo -buildvcs=auto)

build:
	$(SIMD) $(GO) build $(BUILDVCS) -o $(BIN)/ ./cmd/...

# test: formatting, vet, the race detector over everything, the allocation
# and fuzz-seed tests without it (the race detector allocates), the quant
# tests with the SIMD experiment, and every benchmark for one iteration so
# none rots. No timing is asserted anywhere.
test: fmt-check vet race noalloc simd-test portable bench-smoke

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet ./...

race:
	$(GO) test -race -count=1 -timeout 15m ./...

noalloc:
	$(GO) test -count=1 -timeout 15m ./...

# The quantisation kernels with and without the SIMD experiment; GOAMD64=v3
# guards against fused multiply-adds changing results.
simd-test:
	$(SIMD) $(GO) vet ./quant/
	$(SIMD) $(GO) test -race -count=1 ./quant/
	GOAMD64=v3 $(SIMD) $(GO) test -count=1 ./quant/

# portable: the tree vetted for every system it builds on (each lacks some
# of Linux's features: affinity, SCHED_FIFO, GSO; the calls then return an
# error that says so), and the fallbacks used off Linux (channel-parked
# EventSem, unpinned threads, time.Sleep pacing, sendto only) selected on
# Linux by the portable tag and tested here.
portable:
	for os in linux darwin freebsd windows; do GOOS=$$os $(GO) vet ./... || exit 1; done
	$(GO) vet -tags portable ./...
	$(GO) test -race -count=1 -tags portable ./rt/... ./netthread/ ./datasource/internal/sendpath/

# bench-smoke runs every benchmark once, without -v, so none rots: one
# iteration proves a benchmark runs, not how fast anything is (make bench
# measures). Benchmarks log their diagnostics only with -v.
bench-smoke:
	@echo "bench-smoke: every benchmark once, to prove it runs; the figures of one iteration say nothing about speed (make bench measures)"
	$(SIMD) $(GO) test -run '^$$' -bench . -benchtime 1x -timeout 15m ./...

# bench: the whole suite (about 17 minutes on 2 cores), then bench/results.md: every
# figure beside its baseline and the ratio. See BENCHMARKS.md.
BENCHCOUNT    ?= 1
BENCH_SUSTAIN ?= 10s

bench:
	@command -v cyclictest >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq rt-tests; } >/dev/null 2>&1 || echo "rt-tests not installed: BenchmarkCyclictest will skip"
	{ echo "date: $$(date -u +%FT%TZ)"; echo "loadavg-start: $$(cat /proc/loadavg)"; \
	  echo "command: STREAMERD_BENCH_SUSTAIN=$(BENCH_SUSTAIN) $(SIMD) go test -run '^\$$' -bench . -benchtime $(BENCHTIME) -count $(BENCHCOUNT) -v ./..."; \
	  STREAMERD_BENCH_SUSTAIN=$(BENCH_SUSTAIN) $(SIMD) $(GO) test -run '^$$' -bench . -benchtime $(BENCHTIME) -count $(BENCHCOUNT) -v -timeout 60m ./... ; \
	  echo "loadavg-end: $$(cat /proc/loadavg)"; } 2>&1 | tee bench/raw.txt
	@! grep -q '^FAIL' bench/raw.txt
	$(GO) run ./bench/report -o bench/results.md bench/raw.txt

# rtcompare: streamerd's RT thread and cyclictest side by side on one CPU,
# SCHED_FIFO 80 (RTCOMPARE_FLAGS="-prio 0" for normal scheduling), for
# RTCOMPARE_TIME; both distributions, their ratios, the steal of the run and
# the causes of streamerd's late cycles (BENCHMARKS.md). It says why when
# it cannot run (no cyclictest: apt-get install rt-tests; no privileges).
RTCOMPARE_TIME  ?= 60s
RTCOMPARE_FLAGS ?=

rtcompare:
	$(GO) run ./cmd/rtcompare -d $(RTCOMPARE_TIME) $(RTCOMPARE_FLAGS)

# fuzz: each fuzz target for FUZZTIME. The fuzzer minimises every input
# that finds new coverage before going on, and Go's minimiser runs it O(n²)
# times for n bytes (a 1 KB configuration: half a million runs, minutes),
# so by default nothing is minimised and the time goes to fuzzing; a
# failing input is then written as found (FUZZMINIMIZE=60s to minimise).
FUZZMINIMIZE ?= 0

# Go 1.26's fuzzing coordinator can end a run that found nothing with
# "context deadline exceeded" when FUZZTIME runs out while a worker is busy
# (golang/go#75804, fixed in Go 1.27): such a run wrote no failing input,
# and is reported and passed over; any other failure stops make fuzz.
fuzz:
	@set -e; out=$$(mktemp); trap 'rm -f $$out' EXIT; \
	for pkg in $$($(GO) list ./...); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "== $$pkg $$t"; \
	    if $(SIMD) $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg >$$out 2>&1; then \
	      cat $$out; \
	    elif cat $$out; grep -q 'context deadline exceeded' $$out && ! grep -q 'Failing input written' $$out; then \
	      echo "== $$pkg $$t: stopped by Go's end-of-fuzztime race (golang/go#75804), no failing input"; \
	    else \
	      exit 1; \
	    fi; \
	  done; \
	done

# soak: the whole application at 10 kHz with a client for 10 minutes, then
# the daemon at 1 kHz under the abuse load beside one left alone for 2
# minutes (CI runs the same tests for 30 s and 3 s in make test).
soak:
	$(GO) test -count=1 -run '^TestSoak$$' -timeout 20m -v ./internal/app -soak 10m
	$(GO) test -count=1 -run '^TestAbuseCostsTheRTLoopLittle$$' -timeout 10m -v ./cmd/streamerd -abuse 2m

# soak-load: the budget of the automatic hand-off ring: configs/app.toml as
# shipped for 10 minutes, then configs/burst.toml for 60 s, each beside two
# CPU-bound processes; no cycle may be dropped at the hand-off.
soak-load:
	$(GO) test -count=1 -run '^TestSoak$$' -timeout 20m -v ./internal/app -soak 10m -soak.config app.toml -soak.load 2
	$(GO) test -count=1 -run '^TestSoak$$' -timeout 5m -v ./internal/app -soak 60s -soak.config burst.toml -soak.load 2

run: build
	./$(BIN)/streamerd -config $(CONFIG)

check: test

clean:
	rm -rf $(BIN)
