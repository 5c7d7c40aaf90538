#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# schema_check.py [--lines] SCHEMA FILE...: validates each JSON FILE against the draft-07 SCHEMA
# (python3-jsonschema); with --lines each line of each FILE is one JSON document (JSON Lines:
# --stream). A schema refers to its neighbours by name ("mpi-job.schema.json"): every schema in
# SCHEMA's directory is loaded, nothing is fetched. One line per error, exit 1 when any
# document does not validate.
import glob
import json
import os
import sys
import warnings

import jsonschema

lines = len(sys.argv) > 1 and sys.argv[1] == "--lines"
args = sys.argv[2:] if lines else sys.argv[1:]
schema = json.load(open(args[0]))
store = {}
for p in glob.glob(os.path.join(os.path.dirname(os.path.abspath(args[0])), "*.schema.json")):
    s = json.load(open(p))
    jsonschema.Draft7Validator.check_schema(s)
    store[s.get("$id", p)] = s
try:
    # jsonschema >= 4.18: a registry of the neighbours
    from referencing import Registry, Resource
    registry = Registry().with_resources((i, Resource.from_contents(s)) for i, s in store.items())
    v = jsonschema.Draft7Validator(schema, registry=registry)
except ImportError:
    # Debian's python3-jsonschema (4.10): RefResolver
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        v = jsonschema.Draft7Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=store))

def refuse(c):
    # nan/inf are not JSON: refuse them rather than let Python read them as floats
    raise ValueError(f"{c} is not JSON")


bad = 0
for path in args[1:]:
    try:
        with open(path) as f:
            docs = [(f"{path}:{i + 1}", json.loads(l, parse_constant=refuse)) for i, l in enumerate(f)] if lines \
                else [(path, json.load(f, parse_constant=refuse))]
    except (OSError, ValueError) as e:
        print(f"{path}: not JSON: {e}")
        bad = 1
        continue
    if not docs:
        print(f"{path}: empty")
        bad = 1
    for where, doc in docs:
        for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))[:20]:
            print(f"{where}: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message[:300]}")
            bad = 1
sys.exit(bad)
