#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# schema_check.py [--lines] SCHEMA FILE...: validates each JSON FILE against the draft-07 SCHEMA
# (python3-jsonschema); with --lines each line of each FILE is one JSON document (JSON Lines:
# --stream). A schema refers to its neighbours by name ("mpi-job.schema.json"): every schema in
# SCHEMA's directory is loaded, nothing is fetched. One line per error, exit 1 when any
# document does not validate.
# schema_check.py --batch QUEUE: many checks in one process (starting Python and importing
# jsonschema is most of a check's time): QUEUE holds NUL-separated fields, each check
# "valid|invalid [--lines] SCHEMA FILE..." ended by an empty field (lib.sh's schema_valid,
# schema_invalid, schema_checks write and run it). "valid": every FILE validates, as above;
# "invalid": each FILE on its own does not. Prints each unmet expectation, exit 1 if any.
import glob
import json
import os
import sys
import warnings

import jsonschema

validators = {}
stores = {}


def validator(path):
    """The Draft7Validator of the schema at path, its neighbours loaded (once per schema)"""
    if path in validators:
        return validators[path]
    schema = json.load(open(path))
    d = os.path.dirname(os.path.abspath(path))
    if d not in stores:
        stores[d] = {}
        for p in glob.glob(os.path.join(d, "*.schema.json")):
            s = json.load(open(p))
            jsonschema.Draft7Validator.check_schema(s)
            stores[d][s.get("$id", p)] = s
    store = stores[d]
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
    validators[path] = v
    return v


def refuse(c):
    # nan/inf are not JSON: refuse them rather than let Python read them as floats
    raise ValueError(f"{c} is not JSON")


def check(lines, schema, paths, out):
    """validates each file of paths against schema; one line per error to out; 1 if any"""
    v = validator(schema)
    bad = 0
    for path in paths:
        try:
            with open(path) as f:
                docs = [(f"{path}:{i + 1}", json.loads(l, parse_constant=refuse)) for i, l in enumerate(f)] if lines \
                    else [(path, json.load(f, parse_constant=refuse))]
        except (OSError, ValueError) as e:
            out.append(f"{path}: not JSON: {e}")
            bad = 1
            continue
        if not docs:
            out.append(f"{path}: empty")
            bad = 1
        for where, doc in docs:
            for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))[:20]:
                out.append(f"{where}: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message[:300]}")
                bad = 1
    return bad


def batch(queue):
    """runs the checks of queue (--batch above); 1 if any expectation is not met"""
    fields = open(queue, "rb").read().decode().split("\0")
    checks, cur = [], []
    for f in fields:
        if f:
            cur.append(f)
        elif cur:
            checks.append(cur)
            cur = []
    unmet = 0
    for c in checks:
        want, args = c[0], c[1:]
        lines = bool(args) and args[0] == "--lines"
        if lines:
            args = args[1:]
        if want not in ("valid", "invalid") or len(args) < 2:
            print(f"schema_check.py --batch: a bad check: {' '.join(c)}")
            return 1
        schema, paths = args[0], args[1:]
        name = os.path.basename(schema)
        if want == "valid":
            out = []
            if check(lines, schema, paths, out):
                print(f"not valid against {name}:")
                print("\n".join(out))
                unmet = 1
        else:
            for p in paths:
                if not check(lines, schema, [p], []):
                    print(f"{p} validates against {name} (a broken document)")
                    unmet = 1
    return unmet


if len(sys.argv) == 3 and sys.argv[1] == "--batch":
    sys.exit(batch(sys.argv[2]))
lines = len(sys.argv) > 1 and sys.argv[1] == "--lines"
args = sys.argv[2:] if lines else sys.argv[1:]
out = []
bad = check(lines, args[0], args[1:], out)
if out:
    print("\n".join(out))
sys.exit(bad)
