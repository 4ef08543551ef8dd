# Set-up and test entry points. `make run` and `make test` install missing Debian packages first.
SHELL := /bin/bash
APT_PACKAGES := pkg-config libsqlite3-dev libmpg123-dev libao-dev libedit-dev libflac-dev libvorbis-dev libopusfile-dev \
  libavformat-dev libavcodec-dev libswresample-dev libswscale-dev libtag1-dev libebur128-dev libicu-dev libpcre2-dev libcue-dev libchromaprint-dev libxml2-dev \
  libsystemd-dev libavahi-client-dev libopusenc-dev libmp3lame-dev \
  lame sox mpg123 curl mpc mpd flac vorbis-tools opus-tools ffmpeg python3-mutagen python3-venv dbus playerctl mpdris2 avahi-daemon avahi-utils snapserver snapclient
SWIFT ?= swift
# The Swift runtime and Foundation linked in: a one-shot command starts in a third of the time, with no
# dynamic symbol binding of the large shared libraries. The static runtime's link asks to export every
# symbol of the program (38,000), which the runtime's start-up then searches with dladdr: nothing
# loads symbols from the program, so none are exported. LLD (the toolchain's) packs the program's
# 130,000 relative relocations into a few kilobytes (RELR, glibc 2.36): 3 MB less to store and to read
# in at every start.
RELEASE_BUILD := $(SWIFT) build -c release --static-swift-stdlib -Xlinker --no-export-dynamic \
  -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
RELEASE_BIN := .build/release/xzmusic

.PHONY: deps build run test corpora schema transform-tables bench-search bench-oneshot-search bench-rescan bench-playback bench-formats bench-json bench-download bench-server bench-subsonic bench-cli bench-online bench-lyrics fuzz-lyrics fuzz-protocol fuzz-subsonic install clean

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing:$$missing"; \
	  sudo=""; [ "$$(id -u)" = 0 ] || sudo=sudo; \
	  $$sudo apt-get update -qq && \
	  $$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	fi

# The static Foundation calls mktemp, and the linker warns of every mktemp caller: that one note is the
# toolchain's, not ours, so it alone is dropped from the build's output.
build: deps
	@echo "Building xzmusic (release)…"
	@set -o pipefail; $(RELEASE_BUILD) --quiet --product xzmusic 2>&1 | { grep -v "the use of \`mktemp' is dangerous" || true; }

# The prompt runs as a job of its own that owns the terminal (bash job control), so Ctrl-C reaches the
# prompt only, not make. The `exit` after it keeps bash from running the program in make's place (and
# so in make's process group); make succeeds or fails as the program does.
run: build
	@set -m; $(RELEASE_BIN) $(ARGS); exit $$?

test: deps
	scripts/check-schema.sh
	scripts/check-imports.py
	scripts/subsonic-venv.sh
	scripts/run-tests.sh

# The optional public corpora some tests read, from their upstream repositories, into Tests/Corpora/.
corpora:
	scripts/fetch-corpora.sh

# Regenerates the Swift copy of schema.sql that the binary carries.
schema:
	scripts/embed-schema.sh > Sources/XZCatalogue/Schema+Embedded.swift

# Regenerates the ICU transform results search folding carries (slow: every Han character).
transform-tables:
	scripts/make-transform-tables.sh > Sources/XZCatalogue/TransformTables+Generated.swift.new
	mv Sources/XZCatalogue/TransformTables+Generated.swift.new Sources/XZCatalogue/TransformTables+Generated.swift

bench-search: deps
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench search

bench-oneshot-search: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench oneshot-search

# MPD's update is the baseline when mpd and mpc are installed (apt-get install mpd mpc).
bench-rescan: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench rescan

bench-playback: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench playback

# Also needs flac, vorbis-tools, opus-tools, ffmpeg and python3-mutagen (apt-get install); it names any missing.
bench-formats: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench formats $(PARTS)

bench-json: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench json

bench-download: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench download

bench-server: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-floor-client
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench server

# The Subsonic API: search3 at 100,000 songs, a 10,000-song sync, raw and transcoded streams against cat, dd
# and the ffmpeg CLI, 20 transcoded listeners, and Debian's supysonic (installed here) on the same folder.
bench-subsonic: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="supysonic python3-waitress"
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench subsonic

# One-shot player commands against a host with 10 to 100,000 queued songs, beside mpc on the same host;
# COMPARE=OTHER_BINARY measures another build's xzmusic in the same run (before and after).
bench-cli: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench cli $(if $(COMPARE),--compare $(COMPARE))

bench-lyrics: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench lyrics

bench-online: deps
	$(RELEASE_BUILD) --product xzmusic
	$(RELEASE_BUILD) --product xzmusic-bench
	.build/release/xzmusic-bench online

# The MPD protocol fuzzer against a real host (fuzz/README.md) for FUZZ_SECONDS; ends with a summary of
# executions, coverage and findings (in .build-fuzz/protocol/findings/), and fails when there are findings.
FUZZ_SECONDS ?= 60
fuzz-protocol: deps
	fuzz/fuzz.py protocol $(FUZZ_SECONDS)

# The Subsonic API fuzzer against a real library (fuzz/README.md) for FUZZ_SECONDS; the same summary, findings
# in .build-fuzz/subsonic/findings/, and fails when there are findings.
fuzz-subsonic: deps
	fuzz/fuzz.py subsonic $(FUZZ_SECONDS)

# The program stripped; DEBUG=1 also installs its debug information beside it, in bin/.debug where gdb
# looks for the file the stripped program names by its debug link.
install: build
	install -d $(DESTDIR)$(PREFIX)/bin
	objcopy --only-keep-debug $(RELEASE_BIN) $(RELEASE_BIN).debug
	objcopy --strip-all --add-gnu-debuglink=$(RELEASE_BIN).debug $(RELEASE_BIN) $(RELEASE_BIN).stripped
	install -m755 $(RELEASE_BIN).stripped $(DESTDIR)$(PREFIX)/bin/xzmusic
	$(if $(DEBUG),install -Dm644 $(RELEASE_BIN).debug $(DESTDIR)$(PREFIX)/bin/.debug/xzmusic.debug)
	mkdir -p $(DESTDIR)$(PREFIX)/share/xzmusic
	cp -R Resources/demo $(DESTDIR)$(PREFIX)/share/xzmusic/

PREFIX ?= /usr/local

clean:
	rm -rf .build
