"""The JSON schemas of docs/schemas/, loaded together so that one schema's
$ref to another ("diagnostic.schema.json#/$defs/diagnostic") resolves
locally, never over the network. Works with Debian 12's python3-jsonschema
(4.10, RefResolver) and newer ones (the `referencing` registry)."""
import glob, json, os

import jsonschema


def load(schema_dir):
    store = {}
    for path in sorted(glob.glob(os.path.join(schema_dir, "*.schema.json"))):
        with open(path, encoding="utf-8") as f:
            schema = json.load(f)
        store[schema["$id"]] = schema
        store[os.path.basename(path)] = schema
    return store


def validator(schema_dir, name):
    """A Draft 2020-12 validator for docs/schemas/NAME with every sibling
    schema resolvable."""
    store = load(schema_dir)
    schema = store[name]
    cls = jsonschema.Draft202012Validator
    cls.check_schema(schema)
    try:
        from referencing import Registry, Resource  # jsonschema >= 4.18
        registry = Registry().with_resources(
            (sid, Resource.from_contents(s)) for sid, s in store.items() if sid.startswith("https://"))
        return cls(schema, registry=registry)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(
            schema, store={sid: s for sid, s in store.items() if sid.startswith("https://")})
        return cls(schema, resolver=resolver)


def errors(schema_dir, name, instance):
    """Every violation, as `path: message` lines (empty when valid)."""
    v = validator(schema_dir, name)
    return [f"{'/'.join(str(p) for p in e.absolute_path) or '(root)'}: {e.message}"
            for e in sorted(v.iter_errors(instance), key=lambda e: list(e.absolute_path))]
