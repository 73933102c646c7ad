# The two commands of the README: `make run` and `make test`. Both install what is missing.
SWIFT ?= swift
SAMPLES ?= $(or $(SENTIO_SAMPLES),$(HOME)/.cache/sentio/samples)
FUZZ_ITERATIONS ?= 100000

.PHONY: run test deps models release bench-jpeg clean

deps:
	@scripts/install-deps

models: deps
	@scripts/fetch-models

release: deps
	$(SWIFT) build -c release --product sentio

# The newest capability on a photo from a registry package (matplotlib's Grace Hopper),
# written as an annotated PNG.
run: models release
	@mkdir -p out
	.build/release/sentio image demo $(SAMPLES)/grace_hopper.jpg out/demo.png
	@echo "open out/demo.png"

# Unit, parity and evaluation tests, then 100,000 mutated files per image decoder.
test: models
	$(SWIFT) build -c release --product sentio-fuzz
	$(SWIFT) test
	.build/release/sentio-fuzz $(FUZZ_ITERATIONS)

# Decoding speed against libjpeg-turbo's djpeg on a 12-megapixel JPEG (not part of the tests).
bench-jpeg: models release
	scripts/bench-jpeg

clean:
	rm -rf .build out
