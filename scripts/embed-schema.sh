#!/usr/bin/env bash
# Prints the Swift file that carries schema.sql inside the binary, so an installed xzmusic
# needs no source tree. `make schema` writes it; scripts/check-schema.sh checks it is current.
set -euo pipefail
cd "$(dirname "$0")/.."
if grep -q '"""#' schema.sql; then echo 'schema.sql must not contain """#' >&2; exit 1; fi
printf '// Generated from schema.sql by scripts/embed-schema.sh (make schema). Do not edit.\n'
printf 'extension Schema {\n    package static let sql = #"""\n'
cat schema.sql
printf '\n"""#\n}\n'
