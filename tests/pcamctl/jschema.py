# SPDX-License-Identifier: BSD-2-Clause
"""A small JSON Schema validator for the subset docs/pcamctl.schema.json uses.

usage: python3 jschema.py SCHEMA [FILE]   (FILE or stdin: one JSON document a line)

Every line must be one JSON document that validates; the exit status is 0
when all do, 1 with each failure named (line, path, rule) otherwise, 2 on
a schema this validator does not understand. It knows the keywords of
JSON Schema 2020-12 the schema uses: type, enum, const, properties,
required, additionalProperties, items, minimum, maximum, minLength,
pattern, $ref (to #/$defs/...), allOf, anyOf, oneOf, not, if/then/else.
Any other keyword is an error, so the schema cannot lean on one that is
silently ignored. (python3-jsonschema is not needed on the test machines.)
"""
import json
import re
import sys

KNOWN = {"$schema", "$id", "$comment", "$defs", "title", "description", "type", "enum", "const",
         "properties", "required", "additionalProperties", "items", "minimum", "maximum",
         "minLength", "pattern", "$ref", "allOf", "anyOf", "oneOf", "not", "if", "then", "else"}


class SchemaError(Exception):
    pass


def type_ok(v, t):
    if t == "object":
        return isinstance(v, dict)
    if t == "array":
        return isinstance(v, list)
    if t == "string":
        return isinstance(v, str)
    if t == "boolean":
        return isinstance(v, bool)
    if t == "null":
        return v is None
    if t == "integer":
        return isinstance(v, int) and not isinstance(v, bool)
    if t == "number":
        return isinstance(v, (int, float)) and not isinstance(v, bool)
    raise SchemaError("unknown type " + repr(t))


def errors(v, s, root, path):
    """The list of (path, message) for v against schema s."""
    if s is True:
        return []
    if s is False:
        return [(path, "no value is allowed here")]
    unknown = set(s) - KNOWN
    if unknown:
        raise SchemaError("keywords not supported: " + ", ".join(sorted(unknown)))
    out = []
    if "$ref" in s:
        ref = s["$ref"]
        if not ref.startswith("#/$defs/"):
            raise SchemaError("unsupported $ref " + ref)
        out += errors(v, root["$defs"][ref[len("#/$defs/"):]], root, path)
    if "type" in s:
        ts = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(type_ok(v, t) for t in ts):
            return out + [(path, "is %s, not of type %s" % (json.dumps(v)[:40], "/".join(ts)))]
    if "enum" in s and not any(v == e and type(v) is type(e) for e in s["enum"]):
        out.append((path, "%s is not one of %s" % (json.dumps(v)[:40], s["enum"])))
    if "const" in s and not (v == s["const"] and type(v) is type(s["const"])):
        out.append((path, "%s is not %s" % (json.dumps(v)[:40], json.dumps(s["const"]))))
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if "minimum" in s and v < s["minimum"]:
            out.append((path, "%s is below %s" % (v, s["minimum"])))
        if "maximum" in s and v > s["maximum"]:
            out.append((path, "%s is above %s" % (v, s["maximum"])))
    if isinstance(v, str):
        if "minLength" in s and len(v) < s["minLength"]:
            out.append((path, "is shorter than %d" % s["minLength"]))
        if "pattern" in s and re.search(s["pattern"], v) is None:
            out.append((path, "%s does not match %s" % (json.dumps(v)[:40], s["pattern"])))
    if isinstance(v, dict):
        for k in s.get("required", []):
            if k not in v:
                out.append((path, "lacks the required '%s'" % k))
        props = s.get("properties", {})
        for k, sub in v.items():
            if k in props:
                out += errors(sub, props[k], root, path + "." + k)
            elif "additionalProperties" in s:
                out += errors(sub, s["additionalProperties"], root, path + "." + k)
    if isinstance(v, list) and "items" in s:
        for i, sub in enumerate(v):
            out += errors(sub, s["items"], root, "%s[%d]" % (path, i))
    for sub in s.get("allOf", []):
        out += errors(v, sub, root, path)
    if "anyOf" in s and not any(not errors(v, sub, root, path) for sub in s["anyOf"]):
        out.append((path, "matches none of anyOf"))
    if "oneOf" in s and sum(1 for sub in s["oneOf"] if not errors(v, sub, root, path)) != 1:
        out.append((path, "does not match exactly one of oneOf"))
    if "not" in s and not errors(v, s["not"], root, path):
        out.append((path, "matches what 'not' forbids"))
    if "if" in s:
        if not errors(v, s["if"], root, path):
            out += errors(v, s.get("then", True), root, path)
        else:
            out += errors(v, s.get("else", True), root, path)
    return out


def main(argv):
    if len(argv) not in (2, 3):
        sys.stderr.write(__doc__)
        return 2
    with open(argv[1]) as f:
        schema = json.load(f)
    src = open(argv[2]) if len(argv) == 3 else sys.stdin
    bad = 0
    n = 0
    try:
        for lineno, line in enumerate(src, 1):
            if not line.strip():
                continue
            n += 1
            try:
                doc = json.loads(line)
            except ValueError as e:
                print("line %d: not JSON: %s" % (lineno, e))
                bad += 1
                continue
            for path, msg in errors(doc, schema, schema, "$"):
                print("line %d: %s %s" % (lineno, path, msg))
                bad += 1
    except SchemaError as e:
        print("schema: " + str(e))
        return 2
    if n == 0:
        print("no document to check")
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
