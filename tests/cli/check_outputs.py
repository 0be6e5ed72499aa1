"""Validates a stepsim output (--json or --csv) against its JSON Schema in docs/schema, and checks
that every numeric field names its unit or is a count, an index or a factor.

usage: check_outputs.py SCHEMA_DIR SCHEMA=FILE...

A CSV is read as pandas would read it with no string parsing: each row an object of its columns,
a cell "" null, "true"/"false" booleans, numbers numbers, the rest text; each row is validated
against the schema (a row schema).
"""
import csv
import json
import pathlib
import re
import sys

import jsonschema

UNIT = re.compile(r"(^|_)(s|ms|us|seconds|gb|gib|bytes|gb_per_s|tflop_per_s|fraction|pct|ratio"
                  r"|per_s|factor)$")
# What qualifies a unit or a count and may follow it: tokens_per_s_per_gpu, flops_per_gpu_mean.
QUALIFIER = re.compile(r"(_per_gpu|_per_pipeline|_per_step|_per_token|_mean|_total|_main|_mtp"
                       r"|_active|_to_best)+$")
# Dimensionless numbers: counts, sizes in whole items, indices, a seed, multipliers.
COUNT = re.compile(r"(^|_)(ratio|count|counts|flops|bytes|tokens|params|events|ops|hops|gpus|nodes|nics"
                   r"|nvswitches|switches|links|layers|layouts|families|trials|steps|chunks"
                   r"|channels|sms|batch|batches|stages|size|len|planes|pods|faults|timed"
                   r"|simulated|survived|lost|errors|faster|invalid|fit|bounded|split|rank"
                   r"|histogram|of_bounded|of_simulated|position|world_size)$")
INDEX = {"tp", "pp", "dp", "ep", "cp", "zero", "gpu", "first_gpu", "node", "first_node", "nic",
         "plane", "leaf", "spine", "stage", "trial", "seed", "ratio", "slowdown", "factor",
         "stage_layers", "bound_rank"}


def named(key, parents):
    bare = QUALIFIER.sub("", key)
    if UNIT.search(bare) or COUNT.search(bare) or key in INDEX:
        return True
    # Inside "breakdown_s", "comm_bytes", "flops_per_gpu_by_precision", ...
    return any(UNIT.search(QUALIFIER.sub("", p)) or COUNT.search(QUALIFIER.sub("", p))
               or p.startswith("flops") for p in parents)


def unnamed_numbers(x, key="", parents=(), out=None):
    out = [] if out is None else out
    if isinstance(x, dict):
        for k, v in x.items():
            unnamed_numbers(v, k, parents + (key,), out)
    elif isinstance(x, list):
        for v in x:
            unnamed_numbers(v, key, parents, out)
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        # A free-form map (a sweep point, FLOPs by precision) names its keys by the user's words.
        if key and "." not in key and not named(key, parents) and key not in out:
            out.append(key)
    return out


def cell(v):
    if v == "":
        return None
    if v in ("true", "false"):
        return v == "true"
    try:
        return int(v) if re.fullmatch(r"-?[0-9]+", v) else float(v)
    except ValueError:
        return v


def check(store, name, path):
    schema = store[name]
    jsonschema.Draft202012Validator.check_schema(schema)
    resolver = jsonschema.RefResolver(base_uri=name, referrer=schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    text = pathlib.Path(path).read_text()
    if name.endswith(".csv.schema.json"):
        rows = list(csv.reader(text.splitlines()))
        instances = [dict(zip(rows[0], map(cell, r))) for r in rows[1:]]
        if not instances:
            return [f"{path}: no rows"]
    else:
        instances = [json.loads(text)]
    errors = [f"{path}: {'/'.join(map(str, e.absolute_path))}: {e.message}"
              for i in instances for e in validator.iter_errors(i)]
    for i in instances:
        errors += [f"{path}: numeric key '{k}' names no unit" for k in unnamed_numbers(i)]
    return sorted(set(errors))[:20]


def main():
    schema_dir = pathlib.Path(sys.argv[1])
    store = {}
    for f in schema_dir.glob("*.schema.json"):
        s = json.loads(f.read_text())
        store[s["$id"]] = s
    errors = []
    for pair in sys.argv[2:]:
        name, path = pair.split("=", 1)
        errors += check(store, name, path)
    if errors:
        sys.exit("\n".join(errors))


if __name__ == "__main__":
    main()
