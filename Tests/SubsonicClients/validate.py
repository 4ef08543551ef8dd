#!/usr/bin/env python3
"""Validates JSON documents against the OpenSubsonic spec's schemas (its openapi folder), every relative
$ref resolved from the files beside it.

Input on stdin: a JSON array of checks, each {"name": ..., "schema": "Child"} (a schema of schemas/) or
{"name": ..., "endpoint": "getAlbum"} (the endpoint's whole response, `subsonic-response` included), with
"document": the JSON to check. Prints one line per check ("ok NAME" or "FAIL NAME: where: why") and exits
1 when any failed, 2 when the input or the spec is unusable.
"""
import argparse
import datetime
import json
import os
import re
import sys

import jsonschema
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")

format_checker = jsonschema.FormatChecker()


@format_checker.checks("date-time")
def is_date_time(value):
    """RFC 3339, as the spec's dates are (no extra package needed for the check)."""
    if not isinstance(value, str):
        return True
    if not DATE_TIME.match(value):
        return False
    try:
        datetime.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return False
    return True


def file_uri(path):
    return "file://" + os.path.abspath(path)


def load(path):
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def corrected(path, schema):
    """The spec's schemas where they contradict its own docs, as the docs and every client have it."""
    if os.path.basename(path) == "JukeboxStatus.json" and "volume" in schema.get("properties", {}):
        # The schema calls the docs' `gain` (a float from 0 to 1) `volume`, an integer.
        schema = json.loads(json.dumps(schema))
        schema["properties"]["gain"] = {"type": "number", "minimum": 0, "maximum": 1}
        del schema["properties"]["volume"]
        schema["required"] = ["gain" if name == "volume" else name for name in schema["required"]]
    return schema


def retrieve(uri):
    if not uri.startswith("file://"):
        raise LookupError(uri)
    path = uri[len("file://"):]
    return Resource.from_contents(corrected(path, load(path)), default_specification=DRAFT202012)


REGISTRY = Registry(retrieve=retrieve)


def endpoint_schema_path(spec, endpoint):
    """The file of the endpoint's 200 response schema (as its GET operation names it)."""
    path = os.path.join(spec, "endpoints", endpoint + ".json")
    if not os.path.exists(path):  # hls is "hls.m3u8"
        named = [name for name in os.listdir(os.path.join(spec, "endpoints")) if name.startswith(endpoint + ".")]
        if len(named) == 1:
            path = os.path.join(spec, "endpoints", named[0])
    operation = load(path)
    method = operation.get("get") or operation.get("post")
    ref = method["responses"]["200"]
    if "$ref" in ref:  # a shared response (EmptySubsonicResponse, BinaryResponse)
        ref = load(os.path.normpath(os.path.join(os.path.dirname(path), ref["$ref"])))
    if "application/json" not in ref["content"]:
        # Bytes on success: a JSON body is the envelope (an error).
        return os.path.join(spec, "schemas", "SubsonicResponse.json")
    schema_ref = ref["content"]["application/json"]["schema"]["$ref"]
    return os.path.normpath(os.path.join(os.path.dirname(path), schema_ref))


def validator_for(spec, check, cache):
    if "schema" in check:
        path = os.path.join(spec, "schemas", check["schema"] + ".json")
    else:
        path = endpoint_schema_path(spec, check["endpoint"])
    if path not in cache:
        schema = dict(corrected(path, load(path)))
        schema.setdefault("$id", file_uri(path))
        cache[path] = jsonschema.Draft202012Validator(schema, registry=REGISTRY, format_checker=format_checker)
    return cache[path]


def describe(error):
    """Where and why, one line. A oneOf (success or failure) names no branch: the branch with the fewest
    errors came closest, and its error deepest in the document says what is wrong."""
    while error.context:
        branches = {}
        for candidate in error.context:
            branches.setdefault(candidate.relative_schema_path[0], []).append(candidate)
        closest = min(branches.values(), key=len)
        error = max(closest, key=lambda candidate: len(candidate.absolute_path))
    where = "/".join(str(part) for part in error.absolute_path) or "(root)"
    return f"{where}: {error.message[:300]}"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--spec", required=True, help="the spec's openapi folder")
    arguments = parser.parse_args()
    try:
        checks = json.load(sys.stdin)
    except ValueError as error:
        print(f"input is no JSON: {error}")
        return 2
    cache = {}
    failed = 0
    for check in checks:
        name = check.get("name") or check.get("schema") or check.get("endpoint")
        try:
            validator = validator_for(arguments.spec, check, cache)
        except (OSError, KeyError, ValueError) as error:
            print(f"FAIL {name}: no schema: {error}")
            failed += 1
            continue
        errors = sorted(validator.iter_errors(check["document"]), key=lambda e: list(e.absolute_path))
        if errors:
            failed += 1
            for error in errors[:5]:
                print(f"FAIL {name}: {describe(error)}")
        else:
            print(f"ok {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
