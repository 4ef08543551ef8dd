#!/usr/bin/env python3
"""Builds one of the fuzzers (libFuzzer) into .build-fuzz/ and fuzzes it for SECONDS.

Usage: fuzz/fuzz.py protocol|subsonic [SECONDS] [extra libFuzzer flags...]
       (make fuzz-protocol FUZZ_SECONDS=N, make fuzz-subsonic FUZZ_SECONDS=N)

protocol: the MPD protocol fuzzer (fuzz/ProtocolFuzz); subsonic: the Subsonic API fuzzer (fuzz/SubsonicFuzz).
libFuzzer stops at the first finding, so this runs it again and again until the time is up. Each
finding is replayed to name the request that caused it, filed under .build-fuzz/TARGET/findings/ once
per class (its kind and the first frame of ours on its stack, or the request's command or endpoint),
and requests of the same class are skipped from then on so the fuzzer gets past it. At the end it
prints a summary: executions, coverage, findings. Exit status 1 when there were findings.
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


class Protocol:
    """Request lines on one MPD client session; a class is a command with one kind of edge argument."""
    name = "protocol"
    # A request's allocations past this (the process's resident size, a few tens of MB at rest) are a finding.
    rss_limit_mb = 256
    timeout = 15
    max_len = 8192
    replay_timeout = 60
    # Hand-written scenarios in fuzz/, seeds beside the generated ones.
    corpus = "protocol-corpus"

    # Kinds of argument at the edges, each its own class of finding: huge integers (alone or starting a
    # range, ending a range, relative), floats out of range, deep nesting, regular expressions.
    EDGES = [r"""[\s"]-?\d{10,}""", r":-?\d{10,}", r"\+\d{10,}", r"\de\d|nan|inf", r"\({20,}", r"=~"]
    ESCAPE = r"""(xzmusic-catalogue|\.\.|%2e|file:|"/|\s/)"""

    def environment(self):
        return {}

    def subject(self, line):
        """The command a request line runs."""
        words = line.strip().split()
        return words[0].strip('"') if words else ""

    def edge_of(self, line):
        """The edge kinds a line holds, as a pattern (None when it holds none)."""
        kinds = [kind for kind in self.EDGES if re.search(kind, line)]
        return "(%s)" % "|".join(kinds) if kinds else None

    def skip_rule(self, kind, line, input_lines, known):
        """Lines of the finding's class: its command with the same kind of edge argument (or of name leaving
        the music folder), or the earlier line with an edge argument the crash came from (binarylimit before
        albumart), or the whole command; the whole command too when the class is skipped already, yet
        the finding came again."""
        def command(text):
            return self.subject(text).lower()

        def whole(text):
            return r'^\s*"?%s"?(\s|$)' % re.escape(command(text)) if command(text) else None
        if kind == "OUTSIDE THE MUSIC FOLDER" and command(line):
            rule = r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(line)), self.ESCAPE)
        elif self.edge_of(line):
            rule = r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(line)), self.edge_of(line))
        else:
            earlier = [text for text in input_lines if text != line and self.edge_of(text) and command(text)]
            rule = (r'^\s*"?%s"?(?=\s).*%s' % (re.escape(command(earlier[-1])), self.edge_of(earlier[-1]))
                    if earlier else whole(line))
        return whole(line) if rule in known and command(line) else rule


class Subsonic:
    """Requests through the Subsonic API's router; a class is an endpoint."""
    name = "subsonic"
    rss_limit_mb = 512
    timeout = 20
    max_len = 4096
    replay_timeout = 120
    corpus = None
    SPEC = os.path.join(os.path.dirname(ROOT), "shared", "reference", "opensubsonic-api", "openapi", "endpoints")

    def environment(self):
        # The spec's parameters of each endpoint, for the seeds, when the spec is at hand.
        return {"XZ_FUZZ_SPEC": self.SPEC} if os.path.isdir(self.SPEC) else {}

    def subject(self, line):
        """The endpoint a request line asks."""
        return re.split(r"[?&\s]", line.lstrip("!"), maxsplit=1)[0]

    def skip_rule(self, kind, line, input_lines, known):
        endpoint = self.subject(line)
        return "^%s(\\.view)?$" % re.escape(endpoint) if endpoint else None


TARGETS = {target.name: target for target in [Protocol(), Subsonic()]}


class Run:
    """One fuzzing session of a target: its folders, its program, and how a finding is read."""

    def __init__(self, target):
        self.target = target
        # XZ_FUZZ_WORK and XZ_FUZZ_BINARY: a long run in a folder of its own, on a copy of the fuzzer built
        # before (not rebuilt), while the sources change.
        self.work = os.environ.get("XZ_FUZZ_WORK") or os.path.join(SCRATCH, target.name)
        self.product = "xzmusic-%s-fuzz" % target.name
        self.binary = os.environ.get("XZ_FUZZ_BINARY") or os.path.join(SCRATCH, "release", self.product)

    def build(self):
        print("== building (into %s)" % SCRATCH, flush=True)
        subprocess.run([os.environ.get("SWIFT", "swift"), "build", "-c", "release", "--scratch-path", SCRATCH,
                        "--product", self.product,
                        # Coverage for libFuzzer in every Swift module; lld, as gold fails on this link.
                        "-Xswiftc", "-sanitize=fuzzer", "-Xswiftc", "-use-ld=lld",
                        # The harness finds libFuzzer's driver and mutator by name (dlsym).
                        "-Xlinker", "--export-dynamic", "-Xlinker", "-u", "-Xlinker", "LLVMFuzzerRunDriver"],
                       cwd=ROOT, check=True)

    def environment(self):
        env = dict(os.environ)
        env["XZ_FUZZ_DEMO"] = os.path.join(ROOT, "Resources", "demo")
        env["XZ_FUZZ_SKIP"] = os.path.join(self.work, "skip.txt")
        env["XZ_FUZZ_ROOT"] = os.path.join(self.work, "host")
        env["XZ_FUZZ_LAST"] = os.path.join(self.work, "last-input")
        env.update(self.target.environment())
        # libFuzzer, not the Swift runtime's backtracer, takes the crash and saves the input.
        env["SWIFT_BACKTRACE"] = "enable=no"
        return env

    def kind_of(self, log):
        for pattern, kind in [(r"==%s-fuzz== ([A-Z ]+):" % self.target.name, None),
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

    def replay(self, artifact):
        """The input's story, request by request, on a fresh library: the request it died on and the
        resident sizes (which the protocol fuzzer prints)."""
        result = subprocess.run([self.binary, "--replay", artifact], env=self.environment(), capture_output=True,
                                text=True, errors="replace", timeout=self.target.replay_timeout)
        lines = [line[2:] for line in result.stdout.splitlines() if line.startswith("> ")]
        sizes = [int(size) for size in re.findall(r"\(rss (\d+) MB\)", result.stdout)]
        return lines, sizes, result.returncode

    def blame(self, kind, log, artifact):
        """The request that caused the finding (named by the harness, else found by a replay), and whether
        replaying the input alone repeats it."""
        match = re.search(r"==%s-fuzz== [A-Z ]+: (?:cpu \d+ ms, wall \d+ ms: )?(.*)" % self.target.name, log)
        if match and "after: " in match.group(1):
            return match.group(1).split("after: ", 1)[1], True
        if match:
            return match.group(1), True
        try:
            lines, sizes, code = self.replay(artifact)
        except subprocess.TimeoutExpired:
            return "(replay did not finish in %d s)" % self.target.replay_timeout, True
        if kind in ("OUT OF MEMORY", "HUGE ALLOCATION"):
            for line, size in zip(lines, sizes):
                if size > self.target.rss_limit_mb:
                    return line, True
        if code != 0 and lines:
            return lines[-1], True
        return (lines[-1] if lines else ""), False


def demangle(text):
    tool = shutil.which("swift-demangle")
    if not tool:
        return text
    return subprocess.run([tool, "--simplified", "--compact"], input=text, capture_output=True, text=True).stdout or text


def our_frames(log):
    """Frames of our sources on the stack libFuzzer printed: (function, file:line)."""
    frames = []
    for match in re.finditer(r"#\d+ 0x[0-9a-f]+ in (\S+) \S*/(Sources/\S+?):(\d+)", log):
        frames.append((match.group(1), "%s:%s" % (match.group(2), match.group(3))))
    return frames


def main():
    if len(sys.argv) < 2 or sys.argv[1] not in TARGETS:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    target = TARGETS[sys.argv[1]]
    run = Run(target)
    work = run.work
    seconds = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    extra = sys.argv[3:]
    if not os.environ.get("XZ_FUZZ_BINARY"):
        run.build()
    for folder in ["corpus", "artifacts", "findings", "logs"]:
        os.makedirs(os.path.join(work, folder), exist_ok=True)
    # Findings, skips and logs are this run's; the corpus grows from run to run.
    for folder in ["artifacts", "findings", "logs"]:
        for name in os.listdir(os.path.join(work, folder)):
            os.remove(os.path.join(work, folder, name))
    open(os.path.join(work, "skip.txt"), "w").close()
    seeds = os.path.join(work, "seeds")
    shutil.rmtree(seeds, ignore_errors=True)
    subprocess.run([run.binary, "--write-seeds", seeds], env=run.environment(), check=True, stdout=subprocess.DEVNULL)
    if target.corpus:
        corpus = os.path.join(ROOT, "fuzz", target.corpus)
        for name in os.listdir(corpus):
            shutil.copy(os.path.join(corpus, name), os.path.join(seeds, "corpus-" + name))

    print("== fuzzing for %d s" % seconds, flush=True)
    start = time.time()
    executions, coverage, features, runs, failed_runs = 0, 0, 0, 0, 0
    findings = {}  # signature -> dict
    while True:
        remaining = int(start + seconds - time.time())
        if remaining < 5:
            break
        runs += 1
        log_path = os.path.join(work, "logs", "run-%03d.log" % runs)
        before = set(os.listdir(os.path.join(work, "artifacts")))
        with open(log_path, "w") as log_file:
            code = subprocess.run([run.binary, os.path.join(work, "corpus"), seeds, "-dict=%s.dict" % seeds,
                                   "-artifact_prefix=%s/" % os.path.join(work, "artifacts"),
                                   "-max_total_time=%d" % remaining, "-rss_limit_mb=%d" % target.rss_limit_mb,
                                   "-malloc_limit_mb=%d" % target.rss_limit_mb, "-timeout=%d" % target.timeout,
                                   "-max_len=%d" % target.max_len, "-print_final_stats=1", "-reload=0"] + extra,
                                  env=run.environment(), stdout=log_file, stderr=subprocess.STDOUT,
                                  cwd=work).returncode
        log = open(log_path, errors="replace").read()
        executions += sum(int(n) for n in re.findall(r"stat::number_of_executed_units: (\d+)", log))
        for cov, ft in re.findall(r"cov: (\d+) ft: (\d+)", log):
            coverage, features = max(coverage, int(cov)), max(features, int(ft))
        # The inputs libFuzzer saved (one already saved comes again when its skip rule missed it).
        new = [os.path.basename(path) for path in re.findall(r"Test unit written to (\S+)", log)]
        new = [name for name in new if os.path.exists(os.path.join(work, "artifacts", name))]
        if not new and code != 0 and os.path.exists(os.path.join(work, "last-input")):
            # Died without libFuzzer saving the input (a corrupted heap): the input being run is kept.
            data = open(os.path.join(work, "last-input"), "rb").read()
            name = "crash-unsaved-" + hashlib.sha1(data).hexdigest()
            if name not in before:
                shutil.copy(os.path.join(work, "last-input"), os.path.join(work, "artifacts", name))
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
            artifact = os.path.join(work, "artifacts", name)
            data = open(artifact, "rb").read()
            kind = run.kind_of(log)
            frames = our_frames(log)
            line, repeated = run.blame(kind, log, artifact)
            where = frames[0][1] if frames and kind == "CRASH" else (target.subject(line) or "?")
            signature = "%s at %s" % (kind, where)
            known = open(os.path.join(work, "skip.txt")).read().splitlines()
            rule = target.skip_rule(kind, line, data.decode("utf-8", "replace").split("\n"), known)
            if rule and rule not in known:
                with open(os.path.join(work, "skip.txt"), "a") as skips:
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
            report = os.path.join(work, "findings", "%02d-%s.txt" % (number, hashlib.sha1(data).hexdigest()[:10]))
            with open(report, "w") as out:
                out.write("%s\nrequest: %s\n%s\nskipped from then on: %s\n\ninput (%s):\n%s\n\nstack:\n%s\n\nlog: %s\n" % (
                    signature, line, "" if repeated else "(not repeated when the input is replayed alone)\n",
                    rule, artifact, data.decode("utf-8", "replace"), demangle(stack), log_path))
            shutil.copy(artifact, report[:-4] + ".input")
            findings[signature] = {"count": 1, "line": line}
            print("   finding %d: %s: %s" % (number, signature, line[:200]), flush=True)
        if failed_runs >= 3:
            print("   stopped: three findings in a row with nothing new to skip", flush=True)
            break

    # The temporary library, left behind by the runs that ended in a finding.
    shutil.rmtree(os.path.join(work, "host"), ignore_errors=True)
    elapsed = max(1, time.time() - start)
    print("\n== %s fuzz summary" % target.name)
    print("time %d s, %d fuzzer runs, %d executions (%d/s)" % (elapsed, runs, executions, executions / elapsed))
    print("coverage: %d edges (cov), %d features (ft); corpus %d inputs" % (
        coverage, features, len(os.listdir(os.path.join(work, "corpus")))))
    print("findings: %d classes, %d inputs (in %s)" % (
        len(findings), sum(f["count"] for f in findings.values()), os.path.join(work, "findings")))
    for signature, finding in findings.items():
        print("  - %s (%d×): %s" % (signature, finding["count"], finding["line"][:160]))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
