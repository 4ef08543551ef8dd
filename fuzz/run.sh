#!/usr/bin/env bash
# Builds the XZLyrics libFuzzer harness into .build-fuzz/ and fuzzes for SECONDS (default 60).
# Usage: fuzz/run.sh [SECONDS] [extra libFuzzer flags...]. Crashes land in .build-fuzz/crashes/.
set -euo pipefail

SECONDS_TO_RUN="${1:-60}"
shift || true
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="$ROOT/.build-fuzz"
# The optional public corpora, looked for as the tests do: $XZMUSIC_CORPORA, Tests/Corpora, ../shared/corpora.
CORPORA="${XZMUSIC_CORPORA:-}"
[[ -n "$CORPORA" ]] || { [[ -d "$ROOT/Tests/Corpora" ]] && CORPORA="$ROOT/Tests/Corpora"; } || CORPORA="$ROOT/../shared/corpora"
SWIFTC="${SWIFTC:-swiftc}"
FLAGS=(-sanitize=fuzzer,address -parse-as-library -O -swift-version 5)

mkdir -p "$OUT/modules" "$OUT/corpus" "$OUT/crashes"

# XZLyrics imports XZText, so each is built as its own static module (instrumented for coverage and
# ASan), then linked into the harness. Rebuilt every run: it takes seconds and picks up fixes.
echo "== building (into $OUT)"
"$SWIFTC" "${FLAGS[@]}" -module-name XZText -emit-library -static -emit-module \
    -emit-module-path "$OUT/modules/XZText.swiftmodule" -o "$OUT/libXZText.a" \
    "$ROOT"/Sources/XZText/*.swift
"$SWIFTC" "${FLAGS[@]}" -module-name XZLyrics -emit-library -static -emit-module -I "$OUT/modules" \
    -emit-module-path "$OUT/modules/XZLyrics.swiftmodule" -o "$OUT/libXZLyrics.a" \
    "$ROOT"/Sources/XZLyrics/*.swift
"$SWIFTC" "${FLAGS[@]}" -module-name LRCFuzz -I "$OUT/modules" \
    "$ROOT/fuzz/LRCFuzz.swift" "$OUT/libXZLyrics.a" "$OUT/libXZText.a" -o "$OUT/lrc-fuzz"

# Seeds: every LRC file and JSON-embedded input we have. Names are content hashes, so re-seeding is
# idempotent and libFuzzer's own additions (also hash-named) sit next to them.
echo "== seeding $OUT/corpus"
seed() { local sum; sum="$(sha1sum "$1" | cut -d' ' -f1)"; cp -f "$1" "$OUT/corpus/$sum"; }
shopt -s nullglob
for f in "$CORPORA"/283375-lrcparser_python/files/* "$CORPORA"/weirongxu-lrc-kit/*.lrc \
         "$ROOT"/Resources/demo/songs/*.lrc "$ROOT"/Tests/Fixtures/lyrics/*.lrc; do
    [[ -f "$f" ]] && seed "$f"
done
if command -v python3 >/dev/null; then
    python3 - "$OUT/corpus" "$CORPORA"/coolight7-my_lyric/cases.json "$CORPORA"/jacquesh-foo_openlyrics/cases.json <<'PY'
import hashlib, json, os, sys
out, files = sys.argv[1], sys.argv[2:]
def strings(node, key=None):
    # Inputs are under "input", "offset_tag", "timestamp_roundtrip" or in the list of empty inputs.
    if isinstance(node, dict):
        for k, v in node.items():
            yield from strings(v, k)
    elif isinstance(node, list):
        for v in node:
            yield from strings(v, key)
    elif isinstance(node, str) and key in ("input", "offset_tag", "timestamp_roundtrip",
                                             "empty_inputs_give_no_lines"):
        yield node
for path in files:
    if not os.path.exists(path):
        continue
    for s in strings(json.load(open(path, encoding="utf-8"))):
        data = s.encode("utf-8")
        with open(os.path.join(out, hashlib.sha1(data).hexdigest()), "wb") as f:
            f.write(data)
PY
fi
echo "   $(ls "$OUT/corpus" | wc -l) inputs"

echo "== fuzzing for $SECONDS_TO_RUN s"
cd "$OUT"
# The Swift runtime's own crash backtracer would take the signal from libFuzzer (and is slow under ASan).
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"
exec ./lrc-fuzz corpus -dict="$ROOT/fuzz/lrc.dict" -artifact_prefix=crashes/ \
    -max_total_time="$SECONDS_TO_RUN" -max_len=65536 -timeout=20 -print_final_stats=1 "$@"
