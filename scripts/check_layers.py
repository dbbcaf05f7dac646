#!/usr/bin/env python3
"""The layer rule of DESIGN.md, checked against the build graph.

Reads CMake's own description of the build (the File API's codemodel: every
target, its sources, the targets it depends on and its FOLDER) and nothing
else, and holds every `#include` in src/ and include/indelible/ to it:

  * a file belongs to the target that compiles it (a header to the target
    of its .cc twin, else of its folder); a public header to the module
    that lists it among its sources (`indelible_module(... HEADERS ...)`,
    cmake/Modules.cmake);
  * a file may include only its own target's files and those of targets its
    target depends on in CMake (so the CMakeLists.txt lists are the record
    of the rule, and an include that the build does not declare fails);
  * the declared dependencies themselves follow DESIGN.md's order, which
    each module states as its layer (`indelible_module(... LAYER N)`, the
    target's FOLDER "layers/N"): a module uses only modules of a lower
    layer, so modules of one layer (the backends, entities and projections,
    server and client) never use each other;
  * public headers include only the standard library and indelible/*.

Usage: check_layers.py BUILD_DIR [SOURCE_ROOT]. BUILD_DIR must be configured
with the query file .cmake/api/v1/query/codemodel-v2 (scripts/check-layers.sh
does that). SOURCE_ROOT (default: the checkout) is the tree whose includes
are checked; the self-test points it at a copy with planted violations.
"""

import glob
import json
import os
import re
import sys

LAYER = re.compile(r"^layers/(\d+)$")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def load_codemodel(build_dir):
    """Every target's sources, dependencies and layer, and who owns each public header."""
    reply = os.path.join(build_dir, ".cmake", "api", "v1", "reply")
    index = sorted(glob.glob(os.path.join(reply, "codemodel-v2-*.json")))
    if not index:
        sys.exit(f"check-layers: no CMake codemodel in {reply}; configure {build_dir} "
                 "with the query file .cmake/api/v1/query/codemodel-v2 (scripts/check-layers.sh)")
    with open(index[-1]) as f:
        codemodel = json.load(f)
    config = codemodel["configurations"][0]
    names = {t["id"]: t["name"] for t in config["targets"]}
    sources, deps, rank, public = {}, {}, {}, {}
    for target in config["targets"]:
        with open(os.path.join(reply, target["jsonFile"])) as f:
            detail = json.load(f)
        name = detail["name"]
        deps[name] = {names[d["id"]] for d in detail.get("dependencies", [])}
        layer = LAYER.match(detail.get("folder", {}).get("name", ""))
        if layer:
            rank[name] = int(layer.group(1))
        for source in detail.get("sources", []):
            path = source["path"].replace(os.sep, "/")
            if "/indelible/" in "/" + path and path.endswith(".h") and (
                    path.startswith("include/indelible/") or path.endswith("/include/indelible/config.h")):
                header = os.path.basename(path)
                if header in public and public[header] != name:
                    sys.exit(f"check-layers: include/indelible/{header} is listed by both "
                             f"{public[header]} and {name}; one module owns a public header")
                public[header] = name
                continue
            sources.setdefault(path, name)
    return sources, deps, rank, public


def owners(sources):
    """Maps src/ files to targets: .cc by the build, headers by twin or folder."""
    by_file = {p: t for p, t in sources.items() if p.startswith("src/")}
    by_dir = {}
    for path, target in by_file.items():
        by_dir.setdefault(os.path.dirname(path), []).append(target)

    def owner(path):
        if path in by_file:
            return by_file[path]
        stem = os.path.splitext(path)[0]
        for ext in (".cc", ".cpp"):
            if stem + ext in by_file:
                return by_file[stem + ext]
        folder = os.path.dirname(path)
        while folder.startswith("src"):
            if folder in by_dir:
                targets = by_dir[folder]
                return max(set(targets), key=targets.count)
            folder = os.path.dirname(folder)
        return None

    return owner


def check(build_dir, root):
    sources, deps, rank, public_headers = load_codemodel(build_dir)
    owner = owners(sources)
    problems = []
    for module in ("indelible_core", "indelible_store", "indelible"):
        if module not in rank:
            problems.append(f"CMake: {module} has no layer; call indelible_module({module} LAYER N) "
                            "(cmake/Modules.cmake)")

    # 1. The declared graph follows the layer order.
    for target, used in sorted(deps.items()):
        if target not in rank:
            continue
        for dep in sorted(used):
            if dep in rank and rank[dep] >= rank[target]:
                problems.append(f"CMake: {target} depends on {dep}, which is not below it "
                                f"(DESIGN.md's module order; same-layer modules do not use each other)")

    # 2. Every include is of the file's own target or one it depends on.
    def allowed(module, used_module):
        return used_module == module or used_module in deps.get(module, set())

    files = []
    for top in ("src", "include/indelible"):
        for dirpath, _, names in os.walk(os.path.join(root, top)):
            files += [os.path.join(dirpath, n) for n in names if n.endswith((".h", ".cc"))]
    for path in sorted(files):
        rel = os.path.relpath(path, root)
        public = rel.startswith("include/")
        module = public_headers.get(os.path.basename(rel)) if public else owner(rel)
        if module is None:
            what = ("public header no module lists (indelible_module HEADERS)" if public
                    else "file no target builds")
            problems.append(f"{rel}: a {what}; add it to a module")
            continue
        with open(path, errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(2)
                if name.startswith("indelible/"):
                    used = public_headers.get(name[len("indelible/"):])
                    if used is None:
                        problems.append(f"{rel}:{number}: {name} is not a public header of any module")
                        continue
                elif m.group(1) == '"' and os.path.exists(os.path.join(root, "src", name)):
                    if public:
                        problems.append(f"{rel}:{number}: a public header includes private {name}")
                        continue
                    used = owner("src/" + name)
                else:
                    if public and re.match(r"(rocksdb|boost|fmt|CLI|nats|pqxx|sqlite3|openssl)", name):
                        problems.append(f"{rel}:{number}: public headers include only std and "
                                        f"indelible/*, not {name}")
                    continue  # the standard library or a third-party header
                if used is not None and not allowed(module, used):
                    problems.append(f"{rel}:{number}: {module} may not include {name} (of {used}): "
                                    f"it is not among {module}'s CMake dependencies")
    return problems


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    build_dir = sys.argv[1]
    root = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    problems = check(build_dir, root)
    for problem in problems:
        print(f"check-layers: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
