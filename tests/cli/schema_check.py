#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
# schema_check.py SCHEMA FILE...: validates each JSON FILE against the draft-07 SCHEMA
# (python3-jsonschema); one line per error, exit 1 when any file does not validate.
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
jsonschema.Draft7Validator.check_schema(schema)
v = jsonschema.Draft7Validator(schema)
bad = 0
for path in sys.argv[2:]:
    # nan/inf are not JSON: refuse them rather than let Python read them as floats
    doc = json.load(open(path), parse_constant=lambda c: sys.exit(f"{path}: {c} is not JSON"))
    for e in sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))[:20]:
        print(f"{path}: {'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message[:300]}")
        bad = 1
sys.exit(bad)
