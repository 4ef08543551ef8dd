#!/usr/bin/env python3
"""Builds the Subsonic API fuzzer (fuzz/SubsonicFuzz, libFuzzer) into .build-fuzz/ and fuzzes for SECONDS.

Usage: fuzz/subsonic.py [SECONDS] [extra libFuzzer flags...]   (make fuzz-subsonic FUZZ_SECONDS=N)

libFuzzer stops at the first finding, so this runs it again and again until the time is up. Each
finding is filed under .build-fuzz/subsonic/findings/ once per class (its kind and the first frame of
ours on its stack, or the endpoint), and requests to that endpoint are skipped from then on so the fuzzer
gets past it. At the end it prints a summary: executions, coverage, findings. Exit status 1 when there
were findings.
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
WORK = os.environ.get("XZ_FUZZ_WORK") or os.path.join(SCRATCH, "subsonic")
BINARY = os.environ.get("XZ_FUZZ_BINARY") or os.path.join(SCRATCH, "release", "xzmusic-subsonic-fuzz")
RSS_LIMIT_MB = 512
SPEC = os.path.join(os.path.dirname(ROOT), "shared", "reference", "opensubsonic-api", "openapi", "endpoints")


def build():
    print("== building (into %s)" % SCRATCH, flush=True)
    subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--scratch-path", SCRATCH,
                    "--product", "xzmusic-subsonic-fuzz",
                    "-Xswiftc", "-sanitize=fuzzer", "-Xswiftc", "-use-ld=lld",
                    "-Xlinker", "--export-dynamic", "-Xlinker", "-u", "-Xlinker", "LLVMFuzzerRunDriver"],
                   cwd=ROOT, check=True)


def environment():
    env = dict(os.environ)
    env["XZ_FUZZ_DEMO"] = os.path.join(ROOT, "Resources", "demo")
    env["XZ_FUZZ_SKIP"] = os.path.join(WORK, "skip.txt")
    env["XZ_FUZZ_ROOT"] = os.path.join(WORK, "host")
    env["XZ_FUZZ_LAST"] = os.path.join(WORK, "last-input")
    if os.path.isdir(SPEC):
        env["XZ_FUZZ_SPEC"] = SPEC
    env["SWIFT_BACKTRACE"] = "enable=no"
    return env


def demangle(text):
    tool = shutil.which("swift-demangle")
    if not tool:
        return text
    return subprocess.run([tool, "--simplified", "--compact"], input=text, capture_output=True, text=True).stdout or text


def kind_of(log):
    for pattern, kind in [(r"==subsonic-fuzz== (OUTSIDE THE LIBRARY)", None),
                          (r"ERROR: libFuzzer: out-of-memory \(malloc", "HUGE ALLOCATION"),
                          (r"ERROR: libFuzzer: out-of-memory", "OUT OF MEMORY"),
                          (r"ERROR: libFuzzer: timeout", "TIMEOUT"),
                          (r"ERROR: libFuzzer: deadly signal", "CRASH")]:
        match = re.search(pattern, log)
        if match:
            return kind or match.group(1)
    return "UNKNOWN"


def our_frames(log):
    frames = []
    for match in re.finditer(r"#\d+ 0x[0-9a-f]+ in (\S+) \S*/(Sources/\S+?):(\d+)", log):
        frames.append((match.group(1), "%s:%s" % (match.group(2), match.group(3))))
    return frames


def blame(log, artifact):
    """The request that caused the finding: named by the harness, else the last one a replay ran."""
    match = re.search(r"==subsonic-fuzz== [A-Z ]+: .* after: (.*)", log)
    if match:
        return match.group(1)
    try:
        result = subprocess.run([BINARY, "--replay", artifact], env=environment(), capture_output=True,
                                text=True, errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return "(replay did not finish in 120 s)"
    lines = [line[2:] for line in result.stdout.splitlines() if line.startswith("> ")]
    return lines[-1] if lines else ""


def endpoint_of(line):
    return re.split(r"[?&\s]", line.lstrip("!"), maxsplit=1)[0]


def main():
    seconds = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    extra = sys.argv[2:]
    if not os.environ.get("XZ_FUZZ_BINARY"):
        build()
    for folder in ["corpus", "artifacts", "findings", "logs"]:
        os.makedirs(os.path.join(WORK, folder), exist_ok=True)
    for folder in ["artifacts", "findings", "logs"]:
        for name in os.listdir(os.path.join(WORK, folder)):
            os.remove(os.path.join(WORK, folder, name))
    open(os.path.join(WORK, "skip.txt"), "w").close()
    seeds = os.path.join(WORK, "seeds")
    shutil.rmtree(seeds, ignore_errors=True)
    subprocess.run([BINARY, "--write-seeds", seeds], env=environment(), check=True, stdout=subprocess.DEVNULL)

    print("== fuzzing for %d s" % seconds, flush=True)
    start = time.time()
    executions, coverage, features, runs, failed_runs = 0, 0, 0, 0, 0
    findings = {}
    while True:
        remaining = int(start + seconds - time.time())
        if remaining < 5:
            break
        runs += 1
        log_path = os.path.join(WORK, "logs", "run-%03d.log" % runs)
        with open(log_path, "w") as log_file:
            code = subprocess.run([BINARY, os.path.join(WORK, "corpus"), seeds, "-dict=%s.dict" % seeds,
                                   "-artifact_prefix=%s/" % os.path.join(WORK, "artifacts"),
                                   "-max_total_time=%d" % remaining, "-rss_limit_mb=%d" % RSS_LIMIT_MB,
                                   "-malloc_limit_mb=%d" % RSS_LIMIT_MB, "-timeout=20", "-max_len=4096",
                                   "-print_final_stats=1", "-reload=0"] + extra,
                                  env=environment(), stdout=log_file, stderr=subprocess.STDOUT, cwd=WORK).returncode
        log = open(log_path, errors="replace").read()
        executions += sum(int(n) for n in re.findall(r"stat::number_of_executed_units: (\d+)", log))
        for cov, ft in re.findall(r"cov: (\d+) ft: (\d+)", log):
            coverage, features = max(coverage, int(cov)), max(features, int(ft))
        new = [os.path.basename(path) for path in re.findall(r"Test unit written to (\S+)", log)]
        new = [name for name in new if os.path.exists(os.path.join(WORK, "artifacts", name))]
        if not new and code != 0 and os.path.exists(os.path.join(WORK, "last-input")):
            data = open(os.path.join(WORK, "last-input"), "rb").read()
            name = "crash-unsaved-" + hashlib.sha1(data).hexdigest()
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
            line = blame(log, artifact)
            endpoint = endpoint_of(line)
            where = frames[0][1] if frames and kind == "CRASH" else endpoint or "?"
            signature = "%s at %s" % (kind, where)
            rule = "^%s(\\.view)?$" % re.escape(endpoint) if endpoint else None
            known = open(os.path.join(WORK, "skip.txt")).read().splitlines()
            if rule and rule not in known:
                with open(os.path.join(WORK, "skip.txt"), "a") as skips:
                    skips.write(rule + "\n")
                failed_runs = 0
            else:
                failed_runs += 1
            if signature in findings:
                findings[signature]["count"] += 1
                continue
            number = len(findings) + 1
            stack = "\n".join("    %s  (%s)" % frame for frame in frames[:8])
            report = os.path.join(WORK, "findings", "%02d-%s.txt" % (number, hashlib.sha1(data).hexdigest()[:10]))
            with open(report, "w") as out:
                out.write("%s\nrequest: %s\nskipped from then on: %s\n\ninput (%s):\n%s\n\nstack:\n%s\n\nlog: %s\n" % (
                    signature, line, rule, artifact, data.decode("utf-8", "replace"), demangle(stack), log_path))
            shutil.copy(artifact, report[:-4] + ".input")
            findings[signature] = {"count": 1, "line": line}
            print("   finding %d: %s: %s" % (number, signature, line[:200]), flush=True)
        if failed_runs >= 3:
            print("   stopped: three findings in a row with nothing new to skip", flush=True)
            break

    shutil.rmtree(os.path.join(WORK, "host"), ignore_errors=True)
    elapsed = max(1, time.time() - start)
    print("\n== subsonic fuzz summary")
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
