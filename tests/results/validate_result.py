"""Validates an fla-bench result file against results/schema/result.schema.json.

usage: validate_result.py SCHEMA RESULT
Needs the jsonschema package (Debian: python3-jsonschema). Exits 77 (ctest's skip code) saying so when it is
missing, 1 when the file does not validate.
"""
import json
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: the jsonschema Python package is not installed (apt-get install python3-jsonschema)")
    sys.exit(77)

schema_path, result_path = sys.argv[1], sys.argv[2]
with open(schema_path) as f:
    schema = json.load(f)
with open(result_path) as f:
    result = json.load(f)
jsonschema.Draft202012Validator.check_schema(schema)
errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(result), key=lambda e: list(e.path))
for error in errors:
    print("%s: %s" % ("/".join(str(p) for p in error.path), error.message))
if errors:
    sys.exit(1)
print("%s: valid (%d cases)" % (result_path, len(result["cases"])))
