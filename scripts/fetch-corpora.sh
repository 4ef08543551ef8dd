#!/usr/bin/env bash
# Fetches the public test corpora into Tests/Corpora/ (git-ignored), each from its upstream repository at
# the pinned commit, as `make corpora`. Corpus tests find them there; without them those tests are skipped.
# Files some corpus tests also read that upstream does not hold (expected results transcribed from upstream
# tests, mpg123 reference tables, name extractions) are listed at the end; those tests stay skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
destination=Tests/Corpora

# folder | owner/repository | commit | upstream path -> path in the folder, ...
corpora=(
  "lieff-minimp3|lieff/minimp3|7b590fdcfa5a79c033e76eacc05d0c3e4c79f536|vectors->vectors LICENSE->LICENSE"
  "tinytag-tinytag|tinytag/tinytag|dae0722d8887f4dabea14fab36723419b63fd1fd|tinytag/tests/samples->samples"
  "283375-lrcparser_python|283375/lrcparser_python|1ff97f6a97b92239b7eaaaca1c328993ccdb39e4|tests/files->files LICENSE->LICENSE"
  "weirongxu-lrc-kit|weirongxu/lrc-kit|dd4c7cf7efdca642ad2424060ec3b47dbbdb468f|tests/fixtures.ts->fixtures.ts LICENSE->LICENSE"
  "coolight7-my_lyric|coolight7/my_lyric|0308d39ea1e33897c9296cd0a3dcc899c8f8285c|test/my_lyric_test.dart->my_lyric_test.dart LICENSE->LICENSE"
  "jacquesh-foo_openlyrics|jacquesh/foo_openlyrics|e74786a537f2e2157e19c31952f9c6d3bc1afba2|src/parsers/lrc.cpp->lrc.cpp LICENSE->LICENSE"
  "metabrainz-musicbrainz-server|metabrainz/musicbrainz-server|11cd769a5935c243a48455bc3a21158179170368|t/sql/webservice.sql->webservice.sql"
  "metabrainz-picard|metabrainz/picard|638168b37337d7e95891822b55369c9d94743637|test/data/ws_data->ws_data"
)
# Read by corpus tests but made from upstream data rather than held by it.
derived="lieff-minimp3/mpg123-1.31.2_vs_reference.tsv tinytag-tinytag/expected_metadata_from_test_all.json
tinytag-tinytag/mpg123-1.31.2_decode_table.tsv 283375-lrcparser_python/expected.json weirongxu-lrc-kit/expected.json
weirongxu-lrc-kit/*.lrc coolight7-my_lyric/cases.json jacquesh-foo_openlyrics/cases.json
metabrainz-musicbrainz-server/webservice_names.csv metabrainz-picard/ws_data_names.csv"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for entry in "${corpora[@]}"; do
  IFS='|' read -r folder repository commit mapping <<<"$entry"
  if [ -e "$destination/$folder/.commit" ] && [ "$(cat "$destination/$folder/.commit")" = "$commit" ]; then
    echo "$folder: already at $commit"
    continue
  fi
  archive="$work/$folder.tar.gz"
  if ! curl -fsSL --connect-timeout 15 -o "$archive" "https://codeload.github.com/$repository/tar.gz/$commit" 2>/dev/null; then
    echo "make corpora: cannot download $repository at $commit from github.com (offline?); nothing else fetched" >&2
    exit 1
  fi
  unpacked="$work/$folder"
  mkdir -p "$unpacked"
  tar -xzf "$archive" -C "$unpacked" --strip-components=1
  staged="$work/$folder.staged"
  mkdir -p "$staged"
  for pair in $mapping; do
    from=${pair%%->*} to=${pair##*->}
    mkdir -p "$(dirname "$staged/$to")"
    cp -R "$unpacked/$from" "$staged/$to"
  done
  echo "$commit" >"$staged/.commit"
  mkdir -p "$destination"
  rm -rf "${destination:?}/$folder"
  mv "$staged" "$destination/$folder"
  echo "$folder: $repository at $commit"
done
echo "Fetched into $destination/. Not held upstream, so the tests reading them stay skipped:" $derived
