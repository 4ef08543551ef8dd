#!/usr/bin/env bash
# Fails when the schema the binary carries differs from schema.sql.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! diff -u Sources/XZCatalogue/Schema+Embedded.swift <(scripts/embed-schema.sh) >/dev/null; then
    echo "Sources/XZCatalogue/Schema+Embedded.swift is out of date with schema.sql: run 'make schema'" >&2
    exit 1
fi
