#!/usr/bin/env bash
# Prints the Swift file of ICU transform results that search folding carries (see
# scripts/make-transform-tables.swift). `make transform-tables` writes it; a test checks it against ICU.
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swiftc -O scripts/make-transform-tables.swift -o "$work/make-transform-tables"
"$work/make-transform-tables"
