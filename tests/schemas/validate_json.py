#!/usr/bin/env python3
"""validate_json.py SCHEMA_DIR SCHEMA FILE...: each FILE (real output of a
fusecert subcommand) must be JSON valid against docs/schemas/SCHEMA. Exit 1
naming the file and every violation."""
import json, os, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import schemastore  # noqa: E402

schema_dir, name, files = sys.argv[1], sys.argv[2], sys.argv[3:]
if not files:
    sys.exit(f"validate_json: no files to validate against {name}")
bad = 0
for path in files:
    try:
        with open(path, encoding="utf-8") as f:
            instance = json.load(f)
    except (OSError, ValueError) as e:
        print(f"{path}: error: not JSON: {e}")
        bad += 1
        continue
    errs = schemastore.errors(schema_dir, name, instance)
    for e in errs[:20]:
        print(f"{path}: error: {e} [{name}]")
    bad += bool(errs)
if bad:
    sys.exit(1)
print(f"{len(files)} file(s) valid against {name}")
