#!/usr/bin/env python3
"""Builds the MPD protocol fuzzer (fuzz/ProtocolFuzz, libFuzzer) into .build-fuzz/ and fuzzes for SECONDS.

Usage: fuzz/protocol.py [SECONDS] [extra libFuzzer flags...]   (make fuzz-protocol FUZZ_SECONDS=N)

libFuzzer stops at the first finding, so this runs it again and again until the time is up. Each
finding is replayed to name the request that caused it, filed under .build-fuzz/protocol/findings/
once per class (its kind and the first frame of ours on its stack, or the command), and lines of the
same class are skipped from then on so the fuzzer gets past it. At the end it prints a summary:
executions, coverage, findings. Exit status 1 when there were findings.
"""
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRATCH = os.path.join(ROOT, ".build-fuzz")
# XZ_FUZZ_WORK and XZ_FUZZ_BINARY: a long run in a folder of its own, on a copy of the fuzzer built
# before (not rebuilt), while the sources change.
WORK = os.environ.get("XZ_FUZZ_WORK") or os.path.join(SCRATCH, "protocol")
BINARY = os.environ.get("XZ_FUZZ_BINARY") or os.path.join(SCRATCH, "release", "xzmusic-protocol-fuzz")
# A request's allocations past this (the process's resident size, a few tens of MB at rest) are a finding.
RSS_LIMIT_MB = 256


def build():
    print("== building (into %s)" % SCRATCH, flush=True)
    subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--scratch-path", SCRATCH,
                    "--product", "xzmusic-protocol-fuzz",
                    # Coverage for libFuzzer in every Swift module; lld, as gold fails on this link.
                    "-Xswiftc", "-sanitize=fuzzer", "-Xswiftc", "-use-ld=lld",
                    # The harness finds libFuzzer's driver and mutator by name (dlsym).
                    "-Xlinker", "--export-dynamic", "-Xlinker", "-u", "-Xlinker", "LLVMFuzzerRunDriver"],
                   cwd=ROOT, check=True)


def environment():
    env = dict(os.environ)
    env["XZ_FUZZ_DEMO"] = os.path.join(ROOT, "Resources", "demo")
    env["XZ_FUZZ_SKIP"] = os.path.join(WORK, "skip.txt")
    env["XZ_FUZZ_ROOT"] = os.path.join(WORK, "host")
    env["XZ_FUZZ_LAST"] = os.path.join(WORK, "last-input")
    # libFuzzer, not the Swift runtime's backtracer, takes the crash and saves the input.
    env["SWIFT_BACKTRACE"] = "enable=no"
    return env


def demangle(text):
    tool = shutil.which("swift-demangle")
    if not tool:
        return text
    return subprocess.run([tool, "--simplified", "--compact"], input=text, capture_output=True, text=True).stdout or text


def kind_of(log):
    for pattern, kind in [(r"==protocol-fuzz== (SLOW REQUEST|STALLED REQUEST|OUTSIDE THE MUSIC FOLDER)", None),
                          (r"ERROR: libFuzzer: out-of-memory \(malloc", "HUGE ALLOCATION"),
                          (r"ERROR: libFuzzer: out-of-memory", "OUT OF MEMORY"),
                          (r"ERROR: libFuzzer: timeout", "TIMEOUT"),
                          (r"ERROR: libFuzzer: deadly signal", "CRASH"),
                          (r"ERROR: UndefinedBehaviorSanitizer: SEGV|Assertion failed|invalid pointer|Fatal error",
                           "MEMORY CORRUPTION OR CRASH OFF THE FUZZING THREAD")]:
        match = re.search(pattern, log)
        if match:
            return kind or match.group(1)
    return "UNKNOWN"


def our_frames(log):
    """Frames of our sources on the stack libFuzzer printed: (function, file:line)."""
    frames = []
    for match in re.finditer(r"#\d+ 0x[0-9a-f]+ in (\S+) \S*/(Sources/\S+?):(\d+)", log):
        frames.append((match.group(1), "%s:%s" % (match.group(2), match.group(3))))
    return frames


# Kinds of argument at the edges, each its own class of finding: huge integers (alone or starting a
# range, ending a range, relative), floats out of range, deep nesting, regular expressions.
EDGES = [r"""[\s"]-?\d{10,}""", r":-?\d{10,}", r"\+\d{10,}", r"\de\d|nan|inf", r"\({20,}", r"=~"]
EDGE = "(%s)" % "|".join(EDGES)


def edge_of(line):
    """The edge kinds a line holds, as a pattern (None when it holds none)."""
    kinds = [kind for kind in EDGES if re.search(kind, line)]
    return "(%s)" % "|".join(kinds) if kinds else None


def replay(artifact):
    """The input's story, line by line, on a fresh host: the line it died on and the resident sizes."""
    result = subprocess.run([BINARY, "--replay", artifact], env=environment(), capture_output=True,
                            text=True, errors="replace", timeout=60)
    lines = [line[2:] for line in result.stdout.splitlines() if line.startswith("> ")]
    sizes = [int(size) for size in re.findall(r"\(rss (\d+) MB\)", result.stdout)]
    return lines, sizes, result.returncode


def blame(kind, log, artifact):
    """The request line that caused the finding, and whether replaying the input alone repeats it."""
    match = re.search(r"==protocol-fuzz== [A-Z ]+: (?:cpu \d+ ms, wall \d+ ms: )?(.*)", log)
    if match and "after: " in match.group(1):
        return match.group(1).split("after: ", 1)[1], True
    if match:
        return match.group(1), True
    try:
        lines, sizes, code = replay(artifact)
    except subprocess.TimeoutExpired:
        return "(replay did not finish in 60 s)", True
    if kind in ("OUT OF MEMORY", "HUGE ALLOCATION"):
        for line, size in zip(lines, sizes):
            if size > RSS_LIMIT_MB:
                return line, True
    if code != 0 and lines:
        return lines[-1], True
    return (lines[-1] if lines else ""), False


ESCAPE = r"""(xzmusic-catalogue|\.\.|%2e|file:|"/|\s/)"""


def skip_rule(kind, line, input_lines):
    """Lines of the finding's class: its command with the same kind of edge argument (or of name leaving
    the music folder), or the earlier line with an edge argument the crash came from (binarylimit before
    albumart), or the whole command."""
    def command(text):
        words = text.strip().split()
        return words[0].strip('"').lower() if words else ""
    if kind == "OUTSIDE THE MUSIC FOLDER" and command(line):
        return r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(line)), ESCAPE)
    if edge_of(line):
        return r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(line)), edge_of(line))
    for earlier in reversed(input_lines):
        if earlier != line and edge_of(earlier) and command(earlier):
            return r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(earlier)), edge_of(earlier))
    name = command(line)
    return r'^\s*"?%s"?(\s|$)' % re.escape(name) if name else None


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    extra = sys.argv[2:]
    if not os.environ.get("XZ_FUZZ_BINARY"):
        build()
    for folder in ["corpus", "artifacts", "findings", "logs"]:
        os.makedirs(os.path.join(WORK, folder), exist_ok=True)
    # Findings, skips and logs are this run's; the corpus grows from run to run.
    for folder in ["artifacts", "findings", "logs"]:
        for name in os.listdir(os.path.join(WORK, folder)):
            os.remove(os.path.join(WORK, folder, name))
    open(os.path.join(WORK, "skip.txt"), "w").close()
    seeds = os.path.join(WORK, "seeds")
    shutil.rmtree(seeds, ignore_errors=True)
    subprocess.run([BINARY, "--write-seeds", seeds], env=environment(), check=True, stdout=subprocess.DEVNULL)
    for name in os.listdir(os.path.join(ROOT, "fuzz", "protocol-corpus")):
        shutil.copy(os.path.join(ROOT, "fuzz", "protocol-corpus", name), os.path.join(seeds, "corpus-" + name))

    print("== fuzzing for %d s" % seconds, flush=True)
    start = time.time()
    executions, coverage, features, runs, failed_runs = 0, 0, 0, 0, 0
    findings = {}  # signature -> dict
    while True:
        remaining = int(start + seconds - time.time())
        if remaining < 5:
            break
        runs += 1
        log_path = os.path.join(WORK, "logs", "run-%03d.log" % runs)
        before = set(os.listdir(os.path.join(WORK, "artifacts")))
        with open(log_path, "w") as log_file:
            code = subprocess.run([BINARY, os.path.join(WORK, "corpus"), seeds, "-dict=%s.dict" % seeds,
                                   "-artifact_prefix=%s/" % os.path.join(WORK, "artifacts"),
                                   "-max_total_time=%d" % remaining, "-rss_limit_mb=%d" % RSS_LIMIT_MB,
                                   "-malloc_limit_mb=%d" % RSS_LIMIT_MB, "-timeout=15", "-max_len=8192",
                                   "-print_final_stats=1", "-reload=0"] + extra,
                                  env=environment(), stdout=log_file, stderr=subprocess.STDOUT,
                                  cwd=WORK).returncode
        log = open(log_path, errors="replace").read()
        executions += sum(int(n) for n in re.findall(r"stat::number_of_executed_units: (\d+)", log))
        for cov, ft in re.findall(r"cov: (\d+) ft: (\d+)", log):
            coverage, features = max(coverage, int(cov)), max(features, int(ft))
        # The inputs libFuzzer saved (one already saved comes again when its skip rule missed it).
        new = [os.path.basename(path) for path in re.findall(r"Test unit written to (\S+)", log)]
        new = [name for name in new if os.path.exists(os.path.join(WORK, "artifacts", name))]
        if not new and code != 0 and os.path.exists(os.path.join(WORK, "last-input")):
            # Died without libFuzzer saving the input (a corrupted heap): the input being run is kept.
            data = open(os.path.join(WORK, "last-input"), "rb").read()
            name = "crash-unsaved-" + hashlib.sha1(data).hexdigest()
            if name not in before:
                shutil.copy(os.path.join(WORK, "last-input"), os.path.join(WORK, "artifacts", name))
                new = [name]
        if not new:
            if code == 0:
                break
            failed_runs += 1
            print("   the fuzzer stopped without a finding (exit %d), see %s" % (code, log_path), flush=True)
            if failed_runs >= 3:
                break
            continue
        for name in new:
            artifact = os.path.join(WORK, "artifacts", name)
            data = open(artifact, "rb").read()
            kind = kind_of(log)
            frames = our_frames(log)
            line, repeated = blame(kind, log, artifact)
            words = line.strip().split()
            where = frames[0][1] if frames and kind == "CRASH" else (words[0].strip('"') if words else "?")
            signature = "%s at %s" % (kind, where)
            input_lines = data.decode("utf-8", "replace").split("\n")
            rule = skip_rule(kind, line, input_lines)
            known = open(os.path.join(WORK, "skip.txt")).read().splitlines()
            if rule in known and words:
                # Its class is skipped already, yet it came again: the whole command is skipped from now on.
                rule = r'^\s*"?%s"?(\s|$)' % re.escape(words[0].strip('"').lower())
            if rule and rule not in known:
                with open(os.path.join(WORK, "skip.txt"), "a") as skips:
                    skips.write(rule + "\n")
                failed_runs = 0
            else:
                # Nothing new to skip: the next run would stop on it again.
                failed_runs += 1
                print("   %s: no new class to skip (%s)" % (name, rule), flush=True)
            if signature in findings:
                findings[signature]["count"] += 1
                continue
            number = len(findings) + 1
            stack = "\n".join("    %s  (%s)" % frame for frame in frames[:8])
            report = os.path.join(WORK, "findings", "%02d-%s.txt" % (number, hashlib.sha1(data).hexdigest()[:10]))
            with open(report, "w") as out:
                out.write("%s\nrequest: %s\n%s\nskipped from then on: %s\n\ninput (%s):\n%s\n\nstack:\n%s\n\nlog: %s\n" % (
                    signature, line, "" if repeated else "(not repeated when the input is replayed alone)\n",
                    rule, artifact, data.decode("utf-8", "replace"), demangle(stack), log_path))
            shutil.copy(artifact, report[:-4] + ".input")
            findings[signature] = {"count": 1, "line": line, "report": report, "stack": demangle(stack)}
            print("   finding %d: %s: %s" % (number, signature, line[:200]), flush=True)
        if failed_runs >= 3:
            print("   stopped: three findings in a row with nothing new to skip", flush=True)
            break

    # The host's temporary library, left behind by the runs that ended in a finding.
    shutil.rmtree(os.path.join(WORK, "host"), ignore_errors=True)
    elapsed = max(1, time.time() - start)
    print("\n== protocol fuzz summary")
    print("time %d s, %d fuzzer runs, %d executions (%d/s)" % (elapsed, runs, executions, executions / elapsed))
    print("coverage: %d edges (cov), %d features (ft); corpus %d inputs" % (
        coverage, features, len(os.listdir(os.path.join(WORK, "corpus")))))
    print("findings: %d classes, %d inputs (in %s)" % (
        len(findings), sum(f["count"] for f in findings.values()), os.path.join(WORK, "findings")))
    for signature, finding in findings.items():
        print("  - %s (%d×): %s" % (signature, finding["count"], finding["line"][:160]))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
