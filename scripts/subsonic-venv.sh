#!/usr/bin/env bash
# The Python environment the Subsonic API's tests drive the server with: real client libraries
# (py-opensonic, knuckles) and a JSON Schema validator, from PyPI into .build/subsonic-venv.
# Made once; skipped when it already holds them.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=.build/subsonic-venv
packages=(py-opensonic knuckles jsonschema)
if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import libopensonic, knuckles, jsonschema" 2>/dev/null; then
  exit 0
fi
rm -rf "$venv"
mkdir -p .build
python=$(command -v python3)
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check "${packages[@]}"
"$venv/bin/python" -c "import libopensonic, knuckles, jsonschema"
echo "subsonic-venv: $("$venv/bin/python" -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(py-opensonic|knuckles|jsonschema) ' | tr -s ' ' | paste -sd ';')"
