# The two commands of the README: `make run` and `make test`. Both install what is missing.
SWIFT ?= swift
SAMPLES ?= $(or $(SENTIO_SAMPLES),$(HOME)/.cache/sentio/samples)
FUZZ_ITERATIONS ?= 100000

REFERENCE ?= $(HOME)/.cache/sentio/reference/litert-2.3.0
MEDIAPIPE ?= $(HOME)/.cache/sentio/reference/mediapipe-0.10.21
DLIB ?= $(HOME)/.cache/sentio/reference/dlib-20.0.1
ONNXRUNTIME ?= $(HOME)/.cache/sentio/reference/onnxruntime-1.32.0
FIXTURES ?= $(or $(SENTIO_FIXTURES),../shared/fixtures)

.PHONY: drawing-judge run demo test deps models reference release bench-jpeg bench-load bench-neural bench-motion bench-face bench-streams attack clean

deps:
	@scripts/install-deps

models: deps
	@scripts/fetch-models

release: deps
	$(SWIFT) build -c release --product sentio

# The puzzle game's drawing judge into the model store: the trained model committed in
# models/drawings (its README: source, licence, checksums). `scripts/drawing-judge --train`
# trains it again from the fixtures (about 90 s) and checks it is the same file.
drawing-judge:
	@scripts/drawing-judge

# The web applications: the server on every network address, HTTPS with a self-signed certificate
# for phones (made once, kept in the data folder), SQLite in ~/.local/share/sentio. It prints the
# local address and, for a phone on the same network, the HTTPS address and its QR code.
run: models release
	@scripts/drawing-judge
	.build/release/sentio serve --host 0.0.0.0 --tls auto

# The face demo on a photo from a registry package (matplotlib's Grace Hopper): faces found,
# meshed (with irises) and measured, drawn into an annotated PNG.
demo: models release
	@mkdir -p out
	.build/release/sentio faces $(SAMPLES)/grace_hopper.jpg --iris --annotate out/faces.png
	@echo "open out/faces.png"

# LiteRT's, MediaPipe's, dlib's and onnxruntime's outputs for the parity tests (made once; the venvs and outputs stay
# in ~/.cache). Without the fixtures the face parity tests use nothing more and say so.
reference: models
	@test -f $(REFERENCE)/selfie_segmentation/ref_output0.bin || scripts/reference/litert.py outputs
	@test -f $(REFERENCE)/unseen-zidane/pose_landmark_full/ref_output0.bin || ! test -d $(FIXTURES)/reference/images || \
		scripts/reference/litert.py outputs --image $(FIXTURES)/reference/images/zidane.png --out $(REFERENCE)/unseen-zidane pose_landmark_full
	@test -f $(REFERENCE)/unseen-coco488/pose_landmark_full/ref_output0.bin || ! test -d $(FIXTURES)/faces/body || \
		scripts/reference/litert.py outputs --image $(FIXTURES)/faces/body/openpose_COCO_val2014_000000000488.jpg \
		--out $(REFERENCE)/unseen-coco488 pose_landmark_full
	@test -f $(REFERENCE)/efficientnet_lite0-photos/index.json || ! test -d $(FIXTURES)/senses || \
		scripts/reference/litert.py photos --base $(FIXTURES)/senses --out $(REFERENCE)/efficientnet_lite0-photos efficientnet_lite0 \
		$(FIXTURES)/senses/banana $(FIXTURES)/senses/orange $(FIXTURES)/senses/apple $(FIXTURES)/senses/negatives
	@test -f $(MEDIAPIPE)/faces.json || ! test -d $(FIXTURES)/faces || scripts/reference/mediapipe_solutions.py faces \
		$(FIXTURES)/faces/identity $(FIXTURES)/faces/multiface $(FIXTURES)/faces/hard $(FIXTURES)/faces/negatives \
		$(FIXTURES)/faces/attributes $(FIXTURES)/faces/golden_mediapipe $(FIXTURES)/reference/images
	@test -f $(MEDIAPIPE)/hands.json || ! test -d $(FIXTURES)/faces || scripts/reference/mediapipe_solutions.py hands \
		$(FIXTURES)/faces/hands $(FIXTURES)/faces/golden_mediapipe $(FIXTURES)/faces/body $(FIXTURES)/reference/images
	@test -f $(MEDIAPIPE)/pose.json || ! test -d $(FIXTURES)/faces || scripts/reference/mediapipe_solutions.py pose \
		$(FIXTURES)/faces/body $(FIXTURES)/faces/golden_mediapipe $(FIXTURES)/faces/hands $(FIXTURES)/reference/images
	@test -f $(DLIB)/faces.json || ! test -d $(FIXTURES)/faces || scripts/reference/dlib_faces.py faces \
		$(FIXTURES)/faces/identity $(FIXTURES)/faces/multiface $(FIXTURES)/faces/hard $(FIXTURES)/faces/attributes \
		$(FIXTURES)/faces/golden_mediapipe $(FIXTURES)/reference/images
	@test -f $(DLIB)/mmod.json || ! test -d $(FIXTURES)/faces || scripts/reference/dlib_faces.py detect \
		$(FIXTURES)/faces/multiface $(FIXTURES)/faces/hard $(FIXTURES)/faces/negatives $(FIXTURES)/faces/attributes \
		$(FIXTURES)/reference/images
	@test -f $(ONNXRUNTIME)/sface/meta.json || ! test -d $(FIXTURES)/faces || scripts/reference/onnxruntime_sface.py outputs \
		$(FIXTURES)/faces/identity/Jennifer_Aniston $(FIXTURES)/faces/identity/Yale_subject01/yale_subject01_normal.png \
		$(FIXTURES)/faces/identity/Stock_Emotions_A_woman/human_stock-emotions-a-1.jpg
	@test -f $(DLIB)/mmod_up1.json || ! test -d $(FIXTURES)/faces || scripts/reference/dlib_faces.py detect \
		--upsample 1 --max-megapixels 0.3 $(FIXTURES)/faces/multiface/dlib_examples_faces $(FIXTURES)/faces/hard

# Unit, parity and evaluation tests (release build: the parity tests run every model three
# ways), then 100,000 mutated files per image decoder and 10,000 mutated models, then shared
# models, the thread pool and live sessions under ThreadSanitizer (a build of its own).
#
# The server's part: the store and server suites run on SQLite and on a throwaway PostgreSQL
# (scripts/with-postgres); then SIGKILL during 200 writes on each database, 10,000 malformed
# WebSocket messages, three servers behind HAProxy with one killed (scripts/failover),
# schemathesis against the OpenAPI document, the pages in Chromium, the star map in WebKit and Firefox.
# Everything is built once (release, tests included) and then only run.
test: models reference
	$(SWIFT) build -c release --build-tests
	scripts/drawing-judge
	scripts/drawing-judge --train .build/release/sentio
	scripts/fresh-install-check --bin .build/release/sentio
	OMP_THREAD_LIMIT=1 scripts/with-postgres $(SWIFT) test -c release --skip-build --skip TransformedScreensTests  # Tesseract on one thread, as `sentio iv` runs it
	# Hundreds of scans of re-encoded screenshots, alone: beside the timed suites (stream deadlines,
	# liveness, sockets) their two cores of work made those miss their clocks.
	OMP_THREAD_LIMIT=1 $(SWIFT) test -c release --skip-build --filter TransformedScreensTests
	.build/release/sentio-fuzz $(FUZZ_ITERATIONS)
	scripts/crash-test --bin .build/release/sentio
	scripts/with-postgres sh -c 'scripts/crash-test --bin .build/release/sentio --database "$$SENTIO_TEST_POSTGRES"'
	scripts/failover --runs 3 --bin .build/release/sentio
	scripts/ws-fuzz --bin .build/release/sentio --messages 10000
	scripts/api-fuzz --bin .build/release/sentio --examples 40
	SENTIO_BIN=.build/release/sentio scripts/browser-tests
	scripts/engine-tests --bin .build/release/sentio
	$(SWIFT) build -c release --sanitize=thread --product sentio-stress --scratch-path .build-tsan
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" .build-tsan/release/sentio-stress 20

# Decoding speed against libjpeg-turbo's djpeg on a 12-megapixel JPEG (not part of the tests).
bench-jpeg: models release
	scripts/bench-jpeg

# The engine against LiteRT, side by side, 1 and 2 threads (not part of the tests).
bench-neural: models release
	scripts/bench-neural --threads 1
	scripts/bench-neural --threads 2

bench-motion:
	scripts/bench-motion

# Another client's stills under each attack of issue 34, side by side with an idle server (not
# part of the tests: a measurement; docs/hardening.md).
attack: release
	scripts/attack/pressure

# 32 face sessions at once over shared models against one session alone (not part of the tests).
bench-streams: models release
	.build/release/sentio streams --pan $(SAMPLES)/grace_hopper.jpg --frames 40 --sessions 32 --rounds 3

# Face recognition against face_recognition 1.3.0 on dlib 20, one thread each (not part of the tests).
bench-face: models release
	scripts/bench-face

clean:
	rm -rf .build out
