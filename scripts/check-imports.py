#!/usr/bin/env python3
"""Fails when a target's imports and its dependencies in Package.swift differ, either way, or when a target
names the type `Player` that may not: the player is reached through `PlayerHost` only."""
import json, os, re, subprocess, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
# Modules of the toolchain and the system, which need no declaration.
system = {"Foundation", "FoundationEssentials", "FoundationXML", "FoundationNetworking", "Glibc", "Darwin", "Dispatch", "XCTest", "Testing"}
problems = []
by_name = {target["name"]: target for target in package["targets"]}

def depends_on(name, wanted, seen=None):
    """Whether target `name` reaches target `wanted` through its dependencies."""
    seen = set() if seen is None else seen
    for dependency in by_name.get(name, {}).get("dependencies", []):
        kind, value = next(iter(dependency.items()))
        if kind not in ("byName", "target") or value[0] in seen:
            continue
        seen.add(value[0])
        if value[0] == wanted or depends_on(value[0], wanted, seen):
            return True
    return False

# Who may name `Player`: the target that defines it, the host that owns it, and the tests of the layers beneath
# the host, which test the player itself. Every other target goes through PlayerHost's verbs.
PLAYER_OWNERS = {"XZPlaybackEngine", "XZHostCore"}
PLAYER_NAME = re.compile(r"\bPlayer\b")
CODE_NOISE = re.compile(r'//[^\n]*|/\*.*?\*/|"""(?:.|\n)*?"""|"(?:[^"\\\n]|\\.)*"', re.S)

def code_only(text):
    """The text with its comments and string literals blanked, line breaks kept so line numbers stay."""
    return CODE_NOISE.sub(lambda match: re.sub(r"[^\n]", " ", match.group(0)), text)

def may_name_player(target):
    if target["name"] in PLAYER_OWNERS:
        return True
    return target["type"] == "test" and not depends_on(target["name"], "XZHostCore")

for target in package["targets"]:
    if target["type"] == "system":
        continue
    name = target["name"]
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    imported = set()
    for directory, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".swift"):
                path = os.path.join(directory, file)
                text = open(path, encoding="utf-8").read()
                imported |= set(re.findall(r"^\s*(?:@testable\s+)?import\s+(?:struct\s+|class\s+|enum\s+)?([A-Z_]\w*)", text, re.M))
                if not may_name_player(target):
                    for number, line in enumerate(code_only(text).split("\n"), 1):
                        if PLAYER_NAME.search(line):
                            problems.append(f"{os.path.normpath(path)}:{number}: {name} names Player; go through PlayerHost")
    if not imported:
        continue  # a C target
    declared = set()
    for dependency in target["dependencies"]:
        kind, value = next(iter(dependency.items()))
        declared.add(value[0])
    undeclared = sorted(imported - declared - system)
    unused = sorted(declared - imported)
    if undeclared:
        problems.append(f"{name} imports {', '.join(undeclared)} without declaring it")
    if unused:
        problems.append(f"{name} declares {', '.join(unused)} without importing it")
for problem in problems:
    print(problem, file=sys.stderr)
sys.exit(1 if problems else 0)
