#!/usr/bin/env bash
# Regenerates the demo library's audio, Resources/demo/songs/*.mp3, from scratch.
#
# Six short original instrumentals are written out below as note lists and rendered note by note
# with `sox synth` (plucked strings, sine pads, a square lead, synthesised drums), mixed, played
# twice through (so every song is over 30 s and a whole listen counts as a play), then encoded with lame as mono 22.05 kHz 32 kbps CBR MP3s carrying UTF-16 ID3v2 tags. Nothing is
# random (sox runs in repeatable mode, no dither), so a re-run gives byte-identical files with the
# same sox/lame versions. Afterwards the demo lines of Resources/demo/catalogue.jsonl get the new
# duration_ms / size / sha256 (needs mpg123 and python3; skipped with a warning if missing).
# The .lrc lyrics beside the MP3s are hand-written and are not touched here.
#
# Usage: scripts/make-demo.sh            (needs sox/soxi, lame and awk)
set -euo pipefail
export LC_ALL=C.UTF-8   # lame converts --id3v2-utf16 tag text from the locale's charset

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DEMO=$ROOT/Resources/demo
SONGS=$DEMO/songs
for tool in sox soxi lame awk; do
    command -v "$tool" >/dev/null || { echo "make-demo: $tool is required" >&2; exit 1; }
done
mkdir -p "$SONGS"
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

SR=44100                                    # render rate (sox's pluck needs >= 44.1 kHz)
SOX=(sox -R -V1 --no-dither)                # repeatable, quiet, no dither
RAW=(-r "$SR" -e floating-point -b 32)      # intermediate files: mono float WAV
ALBUM="XZMusic Demo"
YEAR=2024
TRACKS=6

# ---------------------------------------------------------------------------------------------
# Rendering. A voice is a list of tokens PITCH:BEATS, where PITCH is a sox note name (E4, F#3,
# Bb4), several joined with + (a chord), @NAME (a chord from CH), r (rest), or for the drum
# timbre k / s / h (kick, snare, hat). Note lengths are placed on an exact sample grid, so voices
# of equal beat count line up exactly.
declare -A CH

# note OUT TIMBRE SPEC SAMPLES
note() {
    local out=$1 timbre=$2 spec=$3 n=$4 len
    len=$(awk -v n="$n" -v sr="$SR" 'BEGIN { printf "%.6f", n / sr }')
    if [[ $spec == r ]]; then
        "${SOX[@]}" -r "$SR" -n "${RAW[@]}" -c 1 "$out" trim 0 "${n}s"
        return
    fi
    if [[ $timbre == drums ]]; then
        local hit=$WORK/hit-$spec.wav sound
        if [[ ! -f $hit ]]; then
            case $spec in
                k) sound=(synth 0.22 sine 150/42 vol 0.9 fade q 0.002 0.22 0.18) ;;
                s) sound=(synth 0.16 noise vol 0.35 highpass 1200 lowpass 6000 fade q 0.001 0.16 0.15) ;;
                h) sound=(synth 0.06 noise vol 0.22 highpass 7000 fade q 0.001 0.06 0.055) ;;
                *) echo "make-demo: unknown drum '$spec'" >&2; exit 1 ;;
            esac
            "${SOX[@]}" -r "$SR" -n "${RAW[@]}" -c 1 "$hit" "${sound[@]}"
        fi
        local hn                                  # the hit, then silence up to the next one
        hn=$(soxi -s "$hit")
        if ((n > hn)); then "${SOX[@]}" "$hit" "$out" pad 0 "$((n - hn))s"
        else "${SOX[@]}" "$hit" "$out" trim 0 "${n}s"; fi
        return
    fi
    [[ $spec == @* ]] && spec=${CH[${spec#@}]:?unknown chord ${spec}}
    local -a pitches waves fx
    IFS=+ read -ra pitches <<<"$spec"
    local p
    for p in "${pitches[@]}"; do
        case $timbre in
            pluck | bass) waves+=(pluck "$p") ;;
            pad | soft)   waves+=(sine "$p") ;;
            box)          waves+=(triangle "$p") ;;
            chip)         waves+=(square "$p") ;;
            *) echo "make-demo: unknown timbre '$timbre'" >&2; exit 1 ;;
        esac
    done
    local fo
    fo=$(awk -v l="$len" 'BEGIN { f = l * 0.5; if (f > 0.06) f = 0.06; printf "%.4f", f }')
    case $timbre in
        pluck) fx=(fade q 0.002 "${n}s" "$fo") ;;
        bass)  fx=(vol 0.5 lowpass 900 fade q 0.004 "${n}s" "$fo") ;;
        pad)   fx=(fade h "$(awk -v l="$len" 'BEGIN { printf "%.4f", l * 0.3 }')" "${n}s" \
                       "$(awk -v l="$len" 'BEGIN { printf "%.4f", l * 0.4 }')") ;;
        soft)  fx=(tremolo 5.5 12 fade h 0.04 "${n}s" "$(awk -v l="$len" 'BEGIN { printf "%.4f", l * 0.3 }')") ;;
        box)   fx=(fade t 0.003 "${n}s" "$(awk -v l="$len" 'BEGIN { printf "%.4f", l * 0.97 }')") ;;
        chip)  fx=(vol 0.5 lowpass 1800 fade q 0.004 "${n}s" "$fo") ;;
    esac
    local mix=()
    ((${#pitches[@]} > 1)) && mix=(remix -)
    "${SOX[@]}" -r "$SR" -c "${#pitches[@]}" -n "${RAW[@]}" -c 1 "$out" \
        synth "${n}s" "${waves[@]}" "${mix[@]}" "${fx[@]}"
}

# voice NAME TIMBRE TOKENS... -> $WORK/NAME.wav; checks the voice spans exactly $BEATS beats
voice() {
    local name=$1 timbre=$2; shift 2
    local total
    total=$(printf '%s\n' $* | awk -F: '{ s += $2 } END { print s }')
    if [[ $total != "$BEATS" ]]; then
        echo "make-demo: voice $name of track $NUM has $total beats, expected $BEATS" >&2
        exit 1
    fi
    local -a files=()
    local i=0 spec n
    while read -r spec n; do
        i=$((i + 1))
        note "$WORK/$name-$i.wav" "$timbre" "$spec" "$n"
        files+=("$WORK/$name-$i.wav")
    done < <(printf '%s\n' $* | awk -F: -v bpm="$BPM" -v sr="$SR" \
        '{ c += $2; e = int(c * 60 * sr / bpm + 0.5); print $1, e - p; p = e }')
    if ((${#files[@]} == 1)); then cp "${files[0]}" "$WORK/$name.wav"
    else "${SOX[@]}" "${files[@]}" "$WORK/$name.wav"; fi
    rm -f "${files[@]}"
}

# rep N TOKENS... -> the tokens N times
rep() { local k=$1; shift; local j; for ((j = 0; j < k; j++)); do printf '%s ' "$@"; done; }

# master FILE TITLE SINGER REVERB TAIL VOICE:GAIN...
# Mixes the voices, plays the mix twice through, adds reverb and a tail, fades out, and encodes
# songs/FILE.mp3 with tags.
master() {
    local file=$1 title=$2 singer=$3 reverb=$4 tail=$5; shift 5
    local -a inputs=()
    local vg
    for vg in "$@"; do   # mix at 0.4 x the given gains to stay clear of clipping
        inputs+=(-v "$(awk -v g="${vg#*:}" 'BEGIN { print g * 0.4 }')" "$WORK/${vg%%:*}.wav")
    done
    local body tailn total            # lengths in samples at $SR
    body=$(awk -v b="$BEATS" -v bpm="$BPM" -v sr="$SR" 'BEGIN { printf "%d", b * 60 * sr / bpm + 0.5 }')
    tailn=$(awk -v t="$tail" -v sr="$SR" 'BEGIN { printf "%d", t * sr + 0.5 }')
    total=$((2 * body + tailn))
    "${SOX[@]}" -m "${inputs[@]}" "${RAW[@]}" -c 1 "$WORK/once.wav"
    "${SOX[@]}" "$WORK/once.wav" "$WORK/once.wav" "$WORK/mix.wav"
    "${SOX[@]}" -G "$WORK/mix.wav" -r 22050 -b 16 -e signed-integer -c 1 "$WORK/final.wav" \
        highpass 35 pad 0 "${tailn}s" reverb "$reverb" 50 70 \
        gain -n -1.5 fade q 0.01 "${total}s" "$(awk -v t="$tail" 'BEGIN { printf "%.3f", t + 0.8 }')" \
        rate -v 22050
    lame --quiet --noreplaygain -m m -b 32 --cbr \
        --id3v2-only --id3v2-utf16 \
        --tt "$title" --ta "$singer" --tl "$ALBUM" --ty "$YEAR" --tn "$NUM/$TRACKS" --tg "Instrumental" \
        "$WORK/final.wav" "$SONGS/$file.mp3"
    rm -f "$WORK"/*.wav
    echo "  $file.mp3  $title — $singer  ($(awk -v n="$total" -v sr="$SR" 'BEGIN { printf "%.2f", n / sr }') s)"
}

echo "make-demo: rendering into $SONGS"

# ---------------------------------------------------------------------------------------------
# 1. 晴天小调 — C major, 108 bpm, 4/4: strummed chords, plucked melody. 11 bars.
NUM=1 BPM=108 BEATS=44
CH=([C]=C4+E4+G4 [G]=B3+D4+G4 [Am]=A3+C4+E4 [F]=A3+C4+F4)
voice mel pluck \
    r:4 \
    E4:1 G4:1 C5:1.5 B4:0.5   A4:1 G4:1 D4:2 \
    E4:1 A4:1 C5:1 B4:0.5 A4:0.5   C5:1 A4:1 F4:2 \
    E4:0.5 F4:0.5 G4:1 C5:1 E5:1   D5:1.5 C5:0.5 B4:1 G4:1 \
    A4:1 C5:1 B4:1 D5:1   C5:3 r:1 \
    A4:1 G4:1 F4:1 E4:1   D4:1 E4:1 C4:2
voice chords pluck \
    $(rep 8 @C:0.5) $(rep 4 @C:1) $(rep 4 @G:1) $(rep 4 @Am:1) $(rep 4 @F:1) \
    $(rep 4 @C:1) $(rep 4 @G:1) @F:1 @F:1 @G:1 @G:1 $(rep 4 @C:1) $(rep 4 @F:1) @C:1 @C:1 @C:2
voice bass bass \
    C3:2 G2:2  C3:2 G2:2  G2:2 D3:2  A2:2 E3:2  F2:2 C3:2 \
    C3:2 G2:2  G2:2 D3:2  F2:2 G2:2  C3:2 G2:2  F2:2 C3:2  C3:4
master 01-qingtian-xiaodiao "晴天小调" "林晓舟" 40 1.2 mel:1.0 chords:0.55 bass:0.8

# 2. 夜風のワルツ — A minor, 144 bpm, 3/4: music-box melody over oom-pah-pah. 17 bars.
NUM=2 BPM=144 BEATS=51
CH=([Am]=A3+C4+E4 [Dm]=A3+D4+F4 [G]=G3+B3+D4 [C]=G3+C4+E4 [E]=G#3+B3+E4 [F]=A3+C4+F4)
voice mel box \
    r:3 \
    E5:2 C5:1   A4:2 B4:1   C5:1 D5:1 F5:1   E5:2 D5:1 \
    D5:2 B4:1   G4:2 A4:1   B4:1 C5:1 E5:1   G#4:3 \
    E5:2 C5:1   A4:2 E5:1   F5:2 E5:1   D5:2 A4:1 \
    C5:1 D5:1 C5:1   B4:2 G#4:1   E5:1 C5:1 B4:1   A4:3
voice chords pluck \
    r:1 @Am:1 @Am:1 \
    $(for c in Am Am Dm Dm G G C E Am Am Dm Dm F E Am Am; do printf 'r:1 @%s:1 @%s:1 ' $c $c; done)
voice bass bass \
    A2:3 \
    A2:3 E2:3 D2:3 A2:3 G2:3 D2:3 C3:3 E2:3 \
    A2:3 E2:3 D2:3 A2:3 F2:3 E2:3 A2:3 A2:3
master 02-yokaze-no-waltz "夜風のワルツ" "星野みなと" 55 1.5 mel:0.9 chords:0.45 bass:0.7

# 3. 바다 산책 — G major, 90 bpm, 4/4: soft sine lead, pad, rolling arpeggios. 9 bars.
NUM=3 BPM=90 BEATS=36
CH=([G]=G3+B3+D4 [Em]=E3+G3+B3 [C]=E3+G3+C4 [D]=F#3+A3+D4)
arp() { printf '%s ' "$1:0.5" "$3:0.5" "$4:0.5" "$3:0.5" "$2:0.5" "$3:0.5" "$4:0.5" "$3:0.5"; }
voice mel soft \
    r:4 \
    B4:1 B4:0.5 A4:0.5 G4:1 D4:1   E4:1 G4:1 B4:2 \
    C5:1 B4:0.5 A4:0.5 G4:1 E4:1   F#4:1 A4:1 D5:2 \
    E5:1.5 D5:0.5 C5:1 B4:1   A4:1 B4:0.5 C5:0.5 D5:2 \
    E5:1.5 D5:0.5 C5:1 B4:1   A4:1 F#4:1 G4:2
voice pad pad @G:4 @G:4 @Em:4 @C:4 @D:4 @C:4 @D:4 @C:4 @D:2 @G:2
voice arps pluck \
    $(arp G3 B3 D4 G4) $(arp G3 B3 D4 G4) $(arp E3 G3 B3 E4) $(arp C3 E3 G3 C4) \
    $(arp D3 F#3 A3 D4) $(arp C3 E3 G3 C4) $(arp D3 F#3 A3 D4) $(arp C3 E3 G3 C4) \
    D3:0.5 A3:0.5 D4:0.5 F#3:0.5 G3:2
voice bass bass \
    G2:4 G2:2 D2:2 E2:2 B2:2 C2:2 G2:2 D2:2 A2:2 C2:2 G2:2 D2:2 A2:2 C2:2 G2:2 D2:2 G2:2
master 03-bada-sanchaek "바다 산책" "한별" 60 1.3 mel:1.0 pad:0.35 arps:0.3 bass:0.6

# 4. Café du Matin — F major, 120 bpm, 4/4: bossa-ish, square lead, seventh chords. 11 bars.
NUM=4 BPM=120 BEATS=44
CH=([F]=F3+A3+C4+E4 [Dm]=D3+F3+A3+C4 [Gm]=F3+G3+Bb3+D4 [C7]=E3+G3+Bb3+C4 [Bb]=D3+F3+A3+Bb3)
bossa() { printf '%s ' "@$1:1.5" "@$1:1.5" "@$1:1"; }
bbass() { printf '%s ' "$1:1.5" "$2:0.5" "$1:1.5" "$2:0.5"; }
voice mel chip \
    r:4 \
    A4:0.5 C5:0.5 F5:1 E5:0.5 D5:0.5 C5:1   D5:1.5 A4:0.5 F4:2 \
    G4:0.5 A4:0.5 Bb4:1 D5:1 C5:1   E4:1 G4:1 C5:2 \
    F5:0.5 D5:0.5 Bb4:0.5 D5:0.5 F5:1 r:1   E5:0.5 C5:0.5 G4:0.5 C5:0.5 E5:1 r:1 \
    A4:0.5 C5:0.5 F5:1 E5:0.5 D5:0.5 C5:1   D5:1.5 E5:0.5 F5:2 \
    G5:1 F5:1 E5:1 C5:1   F5:3 r:1
voice chords pluck \
    $(bossa F) $(bossa F) $(bossa Dm) $(bossa Gm) $(bossa C7) $(bossa Bb) $(bossa C7) \
    $(bossa F) $(bossa Dm) @Gm:1.5 @Gm:0.5 @C7:2 @F:4
voice bass bass \
    $(bbass F2 C3) $(bbass F2 C3) $(bbass D2 A2) $(bbass G2 D3) $(bbass C2 G2) $(bbass Bb1 F2) \
    $(bbass C2 G2) $(bbass F2 C3) $(bbass D2 A2) G2:1.5 D3:0.5 C2:1.5 G2:0.5 F2:4
voice drums drums \
    $(rep 10 k:0.5 h:0.5 h:0.5 h:0.5 s:0.5 h:0.5 h:0.5 h:0.5) k:0.5 h:0.5 h:0.5 h:0.5 k:2
master 04-cafe-du-matin "Café du Matin" "Zoë Lefèvre" 35 1.2 mel:0.8 chords:0.5 bass:0.75 drums:0.5

# 5. 舊城雨巷 — D minor pentatonic, 72 bpm, 4/4: plucked zither, drone pad, raindrops. 7 bars.
NUM=5 BPM=72 BEATS=28
CH=([Dm]=D3+A3+F4 [F]=F3+C4+A4 [C]=C3+G3+D4 [Gm]=G3+D4+F4)
voice mel pluck \
    r:4 \
    A4:1 C5:0.5 A4:0.5 G4:1 F4:1   G4:1.5 A4:0.5 D4:2 \
    F4:1 G4:0.5 A4:0.5 C5:1 D5:1   C5:1.5 A4:0.5 G4:2 \
    A4:1 G4:0.5 F4:0.5 D4:1 F4:1   G4:1 A4:1 D4:2
voice pad pad @Dm:4 @Dm:4 @Dm:4 @F:4 @C:4 @Gm:4 @Dm:4
voice rain pluck $(rep 7 A5:1.5 D6:0.5 r:1 G5:0.5 C6:0.5)
voice bass bass D2:4 D2:4 D2:4 F2:4 C2:4 G2:4 D2:4
master 05-jiucheng-yuxiang "舊城雨巷" "陳雨樵" 70 1.6 mel:1.0 pad:0.4 rain:0.18 bass:0.6

# 6. Lantern Parade — D major, 132 bpm, 4/4: upbeat, off-beat strums, drums. 12 bars.
NUM=6 BPM=132 BEATS=48
CH=([D]=D4+F#4+A4 [G]=D4+G4+B4 [Bm]=D4+F#4+B4 [A]=C#4+E4+A4)
skank() { rep 4 r:0.5 "@$1:0.5"; }
eighths() { rep "$2" "$1:0.5"; }
voice mel pluck \
    r:8 \
    F#4:0.5 A4:0.5 D5:1 D5:0.5 E5:0.5 F#5:1   G5:1 F#5:0.5 E5:0.5 D5:2 \
    B4:0.5 D5:0.5 F#5:1 E5:0.5 D5:0.5 B4:1   C#5:1 E5:1 A4:2 \
    B4:0.5 B4:0.5 D5:1 G5:1 F#5:1   E5:1 C#5:0.5 D5:0.5 E5:2 \
    F#5:0.5 E5:0.5 D5:1 A4:1 F#4:1   G4:0.5 A4:0.5 B4:1 D5:2 \
    E5:1 D5:1 C#5:1 E5:1   D5:3 r:1
voice chords pluck \
    $(skank D) $(skank D) $(skank D) $(skank G) $(skank Bm) $(skank A) $(skank G) $(skank A) \
    $(skank D) $(skank Bm) r:0.5 @G:0.5 r:0.5 @G:0.5 r:0.5 @A:0.5 r:0.5 @A:0.5 @D:4
voice bass chip \
    $(eighths D2 16) $(eighths D2 8) $(eighths G2 8) $(eighths B1 8) $(eighths A1 8) \
    $(eighths G2 8) $(eighths A1 8) $(eighths D2 8) $(eighths B1 8) $(eighths G2 4) $(eighths A1 4) D2:4
voice drums drums \
    $(rep 11 k:0.5 h:0.5 s:0.5 h:0.5 k:0.5 k:0.5 s:0.5 h:0.5) k:1 r:3
master 06-lantern-parade "Lantern Parade" "The Paper Lanterns" 30 1.0 mel:1.0 chords:0.45 bass:0.5 drums:0.6

# ---------------------------------------------------------------------------------------------
# Refresh the demo entries of the catalogue (duration, size, checksum of the new files).
CATALOGUE=$DEMO/catalogue.jsonl
if [[ -f $CATALOGUE ]] && command -v mpg123 >/dev/null && command -v python3 >/dev/null; then
    python3 - "$CATALOGUE" <<'PY'
import hashlib, json, os, subprocess, sys

path = sys.argv[1]
base = os.path.dirname(path)
out = []
with open(path, encoding="utf-8") as f:
    for line in f:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        obj = json.loads(line)
        audio = obj.get("audio_file")
        if audio:
            mp3 = os.path.join(base, audio)
            data = open(mp3, "rb").read()
            # Decode to raw 16-bit mono samples; mpg123 honours lame's gapless info.
            pcm = subprocess.run(["mpg123", "-q", "-s", "--mono", "-r", "22050", mp3],
                                 check=True, stdout=subprocess.PIPE).stdout
            obj["duration_ms"] = round(len(pcm) / 2 / 22050 * 1000)
            obj["size"] = len(data)
            obj["sha256"] = hashlib.sha256(data).hexdigest()
            line = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "))
        out.append(line)
with open(path, "w", encoding="utf-8") as f:
    f.write("\n".join(out) + "\n")
PY
    echo "make-demo: updated demo entries in $CATALOGUE"
else
    echo "make-demo: catalogue not updated (needs $CATALOGUE, mpg123 and python3)" >&2
fi
