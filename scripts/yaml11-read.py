#!/usr/bin/env python3
"""Reads YAML texts as a YAML 1.1 reader (PyYAML's safe loader) does.

The reference side of the differential test (tests/it/reading.rs): stdin is
a JSON list of YAML texts; stdout is a JSON list with, for each text,
{"ok": [document, ...]} or {"error": "..."}. Documents are converted to
JSON as sigs.k8s.io/yaml converts go-yaml's values: integer and boolean
keys become their text. What JSON cannot hold (timestamps, non-finite
floats, other keys, binary, sets) becomes {"$unrepresentable": "..."}, which
chartgen never produces, so chartgen must have refused that text.
"""

import datetime
import json
import math
import sys

import yaml


def mark(what):
    return {"$unrepresentable": what}


def key(k):
    if isinstance(k, bool):
        return "true" if k else "false"
    if isinstance(k, str):
        return k
    if isinstance(k, int):
        return str(k)
    return None


def convert(value):
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else mark("non-finite float")
    if isinstance(value, (datetime.date, datetime.datetime)):
        return mark("timestamp")
    if isinstance(value, list):
        return [convert(item) for item in value]
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            text = key(k)
            if text is None:
                return mark("key of type " + type(k).__name__)
            if text in out:
                return mark("two keys with one text")
            out[text] = convert(v)
        return out
    return mark(type(value).__name__)


def read(text):
    try:
        return {"ok": [convert(doc) for doc in yaml.safe_load_all(text)]}
    except yaml.YAMLError as error:
        return {"error": str(error).splitlines()[0] if str(error) else "error"}
    except Exception as error:  # PyYAML's constructors raise KeyError and others
        return {"error": type(error).__name__}


def main():
    texts = json.load(sys.stdin)
    json.dump([read(text) for text in texts], sys.stdout)


if __name__ == "__main__":
    main()
