#!/usr/bin/env python3
"""The layer rule of DESIGN.md, checked against the build graph.

Reads CMake's own description of the build (the File API's codemodel: every
target, its sources and the targets it depends on) and holds every
`#include` in src/ and include/indelible/ to it:

  * a file belongs to the target that compiles it (a header to the target
    of its .cc twin, else of its folder), public headers to the module named
    in PUBLIC_HEADERS below;
  * a file may include only its own target's files and those of targets its
    target depends on in CMake (so the CMakeLists.txt lists are the record
    of the rule, and an include that the build does not declare fails);
  * the declared dependencies themselves follow DESIGN.md's order (RANK):
    a module uses only modules of a lower rank, so modules of one layer (the
    backends, entities and projections, server and client) never use each
    other;
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

# DESIGN.md "Modules", lowest first. Targets of equal rank may not use each
# other. net (the one HTTP(S) client) sits just above core; aws (SigV4,
# credentials, the AWS JSON client) on net; the DynamoDB backend on aws and
# the store contract; the indelible client on net too.
RANK = {
    "indelible_core": 0,
    "indelible_net": 1,
    "indelible_store": 1,
    "indelible_aws": 2,
    "indelible_memory": 3,
    "indelible_embedded": 3,
    "indelible_dynamodb": 3,
    "indelible_storage": 4,  # Store::Open: plugs the backends in
    "indelible_subscriptions": 5,
    "indelible_relay": 6,
    "indelible_entities": 6,
    "indelible_projections": 6,
    "indelible_api": 7,
    "indelible_auth": 7,  # principals, API keys, JWTs, rules; on the store contract
    "indelible_server": 8,
    "indelible_client": 8,
    "indelible_bench": 9,
    "indelible_cli_base": 10,
    "indelible": 11,  # the CLI: the composition root
}

# Which module each public header belongs to (the module that implements
# it). A new public header must be added here.
PUBLIC_HEADERS = {
    "status.h": "indelible_core",
    "result.h": "indelible_core",
    "types.h": "indelible_core",
    "event.h": "indelible_core",
    "options.h": "indelible_core",
    "config.h": "indelible_core",  # generated: cmake/config.h.in
    "store.h": "indelible_store",
    "subscription.h": "indelible_subscriptions",
    "consumer_group.h": "indelible_subscriptions",
    "nats_relay.h": "indelible_relay",
    "entity.h": "indelible_entities",
    "rules.h": "indelible_entities",
    "projection.h": "indelible_projections",
    "read_store.h": "indelible_projections",
    "project_command.h": "indelible_projections",
    "serve_flags.h": "indelible_cli_base",
    "api.h": "indelible_api",
    "server.h": "indelible_server",
    "client.h": "indelible_client",
}

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def load_codemodel(build_dir):
    reply = os.path.join(build_dir, ".cmake", "api", "v1", "reply")
    index = sorted(glob.glob(os.path.join(reply, "codemodel-v2-*.json")))
    if not index:
        sys.exit(f"check-layers: no CMake codemodel in {reply}; configure {build_dir} "
                 "with the query file .cmake/api/v1/query/codemodel-v2 (scripts/check-layers.sh)")
    with open(index[-1]) as f:
        codemodel = json.load(f)
    config = codemodel["configurations"][0]
    names = {t["id"]: t["name"] for t in config["targets"]}
    sources, deps = {}, {}
    for target in config["targets"]:
        with open(os.path.join(reply, target["jsonFile"])) as f:
            detail = json.load(f)
        name = detail["name"]
        deps[name] = {names[d["id"]] for d in detail.get("dependencies", [])}
        for source in detail.get("sources", []):
            sources.setdefault(source["path"], name)
    return sources, deps


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
    sources, deps = load_codemodel(build_dir)
    owner = owners(sources)
    problems = []

    # 1. The declared graph follows the layer order.
    for target, used in sorted(deps.items()):
        if target not in RANK:
            continue
        for dep in sorted(used):
            if dep in RANK and RANK[dep] >= RANK[target]:
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
        module = PUBLIC_HEADERS.get(os.path.basename(rel)) if public else owner(rel)
        if module is None:
            what = "public header with no module in PUBLIC_HEADERS" if public else "file no target builds"
            problems.append(f"{rel}: a {what}; add it to a module")
            continue
        with open(path, errors="replace") as f:
            for number, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(2)
                if name.startswith("indelible/"):
                    used = PUBLIC_HEADERS.get(name[len("indelible/"):])
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
