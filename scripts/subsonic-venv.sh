#!/usr/bin/env bash
# The Python environment the Subsonic API's tests drive the server with: real client libraries
# (py-opensonic, knuckles) and a JSON Schema validator, from PyPI into .build/subsonic-venv.
# Made once; skipped when it already holds them.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/subsonic-venv
# Pinned: the tests know these versions' parsing (and its quirks, named where they are worked around).
packages=(py-opensonic==10.4.1 knuckles==1.2.0 jsonschema==4.26.0)
check='import importlib.metadata as m, sys
wanted = dict(p.split("==") for p in sys.argv[1:])
sys.exit(any(m.version(name) != version for name, version in wanted.items()))'
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "$check" "${packages[@]}" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
mkdir -p .build
python=$(command -v python3)
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
"$venv/bin/python" -c "$check" "${packages[@]}"
echo "subsonic-venv: $("$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(py-opensonic|knuckles|jsonschema) ' | tr -s ' ' | paste -sd ';')"
