#!/usr/bin/env python3
"""Fails when a target's imports and its dependencies in Package.swift differ, either way."""
import json, os, re, subprocess, sys

root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
os.chdir(root)
package = json.loads(subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout)
# Modules of the toolchain and the system, which need no declaration.
system = {"Foundation", "FoundationEssentials", "FoundationXML", "Glibc", "Darwin", "Dispatch", "XCTest", "Testing"}
problems = []
for target in package["targets"]:
    if target["type"] == "system":
        continue
    name = target["name"]
    folder = target.get("path") or os.path.join("Tests" if target["type"] == "test" else "Sources", name)
    imported = set()
    for directory, _, files in os.walk(folder):
        for file in files:
            if file.endswith(".swift"):
                text = open(os.path.join(directory, file), encoding="utf-8").read()
                imported |= set(re.findall(r"^\s*(?:@testable\s+)?import\s+(?:struct\s+|class\s+|enum\s+)?([A-Z_]\w*)", text, re.M))
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
