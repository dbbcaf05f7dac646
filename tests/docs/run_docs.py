#!/usr/bin/env python3
"""Runs the shell blocks of README.md and docs/*.md marked runnable
(tests/docs/README.md has the convention), so that a document cannot drift
from the program.

Per file with runnable blocks: a fresh `indelible serve` on 127.0.0.1 (a
free port) with a fresh data folder, and a fresh working directory; its
blocks run there in document order, each with bash -e -o pipefail. A block
that exits non-zero, runs past the timeout or (after a `$ ` prompt) does not
print the output it shows fails, with its file, line and output. The last
line is "N passed, N failed". `runnable serve` starts a block's `indelible
serve` line as the file's server; `runnable own-server` gives a block that
starts its own server in the background a port of its own; `build/release/`
names the tested binary's build folder (tests/docs/README.md).

    run_docs.py [--bin PATH] [FILE.md ...]   (default: README.md docs/*.md)
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHELLS = {"sh", "bash", "shell", "console"}
BLOCK_TIMEOUT_S = 30
REPORT_LINES = 40  # of a failing block's output: this many first and last
# The documents name the server's default address; their blocks reach the
# test server there instead.
DEFAULT_ADDRESS = re.compile(r"\b(?:localhost|127\.0\.0\.1):2113\b")
# The documents name programs as a release build has them, from the
# repository's root; the blocks run the build tree of the tested binary.
RELEASE_TREE = re.compile(r"(?<![\w./-])build/release/")
# In a `serve` block: the `indelible serve ...` line the runner starts itself.
SERVE_LINE = re.compile(r"^\s*indelible\s+(?:\S+\s+)*?serve(?:\s|$)")
BACKGROUND_WAIT_S = 10  # for a server a block starts with `&` to listen
STOP_GRACE_S = 5  # SIGTERM, then this long before SIGKILL


class Block:
    def __init__(self, path, line, info, lines):
        self.path, self.line, self.info, self.lines = path, line, info, lines

    @property
    def where(self):
        return f"{shown_path(self.path)}:{self.line}"


def shown_path(path):
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def fenced_blocks(path):
    """Every fenced code block of a Markdown file: (line of the opening
    fence, info string, body lines)."""
    blocks, fence, info, start, body = [], None, "", 0, []
    for number, text in enumerate(path.read_text().splitlines(), 1):
        stripped = text.strip()
        if fence is None:
            m = re.match(r"(`{3,}|~{3,})(.*)$", stripped)
            if m:
                fence, info, start, body = m.group(1), m.group(2).strip(), number, []
        elif stripped.startswith(fence) and stripped.strip(fence[0]) == "":
            blocks.append(Block(path, start, info, body))
            fence = None
        else:
            body.append(text)
    return blocks


def is_runnable(block):
    return "runnable" in block.info.split()  # after the language, checked in main


OPTIONS = {"serve", "own-server"}  # of a runnable block, after `runnable`


def options(block):
    words = block.info.split()
    return set(words[words.index("runnable") + 1:])


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def build_tree(binary):
    """The CMake build folder holding the binary (build/dev for
    build/dev/src/cli/indelible), or None."""
    for folder in Path(binary).parents:
        if (folder / "CMakeCache.txt").exists():
            return folder
    return None


def split_serve_line(script):
    """A `serve` block's script without its first `indelible serve ...`
    line, and that line's arguments (after `indelible`, comment dropped)."""
    lines = script.splitlines()
    for i, line in enumerate(lines):
        if SERVE_LINE.match(line):
            args = shlex.split(line, comments=True)[1:]
            return "\n".join(lines[:i] + lines[i + 1:]) + "\n", args
    return script, None


def wait_after_background(script, port):
    """Makes each command that ends in `&` wait until the block's own port
    listens: a reader waits for the "listening on" line; a script would race."""
    waited = []
    for line in script.splitlines():
        waited.append(line)
        if re.search(r"(?<!&)&\s*(?:#.*)?$", line):
            waited.append(
                f"for _ in $(seq {BACKGROUND_WAIT_S * 10}); do (: <>/dev/tcp/127.0.0.1/{port}) "
                f"2>/dev/null && break; sleep 0.1; done; (: <>/dev/tcp/127.0.0.1/{port}) 2>/dev/null "
                f"|| {{ echo 'test-docs: nothing listens on port {port} {BACKGROUND_WAIT_S} s after "
                f"that `&`' >&2; exit 1; }}")
    return "\n".join(waited) + "\n"


def script_of(block):
    """The commands of a block. With a `$ ` prompt, only the prompted lines
    and the indented lines that continue them: the rest is shown output."""
    if not any(line.startswith("$ ") for line in block.lines):
        return "\n".join(block.lines) + "\n"
    commands, in_command = [], False
    for line in block.lines:
        if line.startswith("$ "):
            commands.append(line[2:])
            in_command = True
        elif in_command and line[:1].isspace() and line.strip():
            commands.append(line)
        else:
            in_command = False
    return "\n".join(commands) + "\n"


def shown_output(block):
    """In a block with a `$ ` prompt, the output lines it shows (without a
    trailing `  # note`): each must appear in what the block printed."""
    if not any(line.startswith("$ ") for line in block.lines):
        return []
    shown, in_command = [], False
    for line in block.lines:
        if line.startswith("$ "):
            in_command = True
        elif in_command and line[:1].isspace() and line.strip():
            pass
        else:
            in_command = False
            text = re.sub(r"\s{2,}#.*$", "", line).strip()
            if text:
                shown.append(text)
    return shown


class Server:
    """`indelible serve` on a free loopback port: by default on a fresh data
    folder; for a `serve` block, with that block's arguments in its working
    directory (the port replaced by a free one)."""

    def __init__(self, binary, folder, args=None, cwd=None, log_name="server.log"):
        if args is None:
            args = ["--data", str(folder / "server-data"), "serve"]
        args = without_listen(args) + ["--listen", "127.0.0.1:0"]
        self.log = open(folder / log_name, "w+")
        self.process = subprocess.Popen([binary, *args], cwd=cwd, stdout=self.log,
                                        stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        self.url = None
        while self.url is None:
            self.log.seek(0)
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.log.read())
            if m:
                self.url = m.group(1)
            elif self.process.poll() is not None or time.monotonic() > deadline:
                self.log.seek(0)
                printed = self.log.read()
                self.stop()
                raise RuntimeError("the server did not start:\n" + printed)
            else:
                time.sleep(0.05)

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


def without_listen(args):
    """Drops `--listen ADDRESS` / `--listen=ADDRESS`: the runner picks the port."""
    kept, skip = [], False
    for arg in args:
        if skip:
            skip = False
        elif arg == "--listen":
            skip = True
        elif not arg.startswith("--listen="):
            kept.append(arg)
    return kept


def stop_session(pgid):
    """Stops what a block left running (a `cmd &`: its whole session), even
    when the block failed: SIGTERM so a server shuts down as a reader's
    Ctrl-C would, then SIGKILL for what is still there."""
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + STOP_GRACE_S
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def not_printed(shown, printed):
    """The shown lines that do not appear in what was printed, each after
    the one before it: a response shown for one command is not matched by
    another's (a 201 after a 415, where the document says 201 then 409)."""
    missing, at = [], 0
    for line in shown:
        found = printed.find(line, at)
        if found < 0:
            missing.append(line)
        else:
            at = found + len(line)
    return missing


def run_block(script, workdir, env):
    """Runs a block's script: (exit code or None on timeout, its output).
    The output goes to a file, not a pipe: a server the block started in the
    background keeps its stdout open after the script ends."""
    with tempfile.TemporaryFile() as out:
        process = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=workdir,
                                   env=env, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, start_new_session=True)
        try:
            try:
                code, note = process.wait(timeout=BLOCK_TIMEOUT_S), ""
            except subprocess.TimeoutExpired:
                code, note = None, f"\n(still running after {BLOCK_TIMEOUT_S} s: stopped)"
        finally:
            stop_session(process.pid)
            process.wait()
        out.seek(0)
        return code, out.read().decode(errors="replace") + note


def run_file(path, blocks, binary, scratch):
    """Runs a file's runnable blocks; returns (passed, failed)."""
    folder = Path(tempfile.mkdtemp(prefix=path.stem + ".", dir=scratch))
    workdir = folder / "work"
    workdir.mkdir()
    try:
        server = Server(binary, folder)
    except RuntimeError as e:
        print(f"FAIL {shown_path(path)}: {e}")
        return 0, len(blocks)
    env = dict(os.environ)
    env.pop("INDELIBLE_API_KEY", None)  # the blocks say which key they use
    env["PATH"] = f"{Path(binary).parent}{os.pathsep}{env.get('PATH', '')}"
    env["INDELIBLE_URL"] = server.url
    # curl draws its progress meter when its output is not a terminal:
    # noise in a failure's report, and not what a reader sees.
    (folder / ".curlrc").write_text("silent\nshow-error\n")
    env["CURL_HOME"] = str(folder)
    tree = build_tree(binary)
    passed = failed = 0
    try:
        for number, block in enumerate(blocks, 1):
            script = script_of(block)
            if tree is not None:
                script = RELEASE_TREE.sub(f"{tree}/", script)
            not_run = None  # why the runner did not run the block
            if "serve" in options(block):
                script, args = split_serve_line(script)
                if args is None:
                    not_run, output = "no `indelible serve` line", ""
                else:  # this block's server serves the rest of the file
                    script = f"# the runner's server: indelible {shlex.join(args)}\n{script}"
                    try:
                        started = Server(binary, folder, args, cwd=workdir,
                                         log_name=f"server-{number}.log")
                        server.stop()
                        server = started
                        env["INDELIBLE_URL"] = server.url
                    except RuntimeError as e:
                        not_run, output = "`indelible serve` failed", str(e)
            address = server.url.removeprefix("http://")
            if "own-server" in options(block):
                port = free_port()
                address = f"127.0.0.1:{port}"
                script = wait_after_background(script, port)
            script = DEFAULT_ADDRESS.sub(address, script)
            if not_run is None:
                code, output = run_block(script, workdir, env)
            else:
                code = not_run
            printed = output.replace("\r", "")
            shown = shown_output(block)
            if tree is not None:
                shown = [RELEASE_TREE.sub(f"{tree}/", line) for line in shown]
            missing = not_printed([DEFAULT_ADDRESS.sub(address, line) for line in shown], printed)
            if code == 0 and missing:
                output += "\n(the document shows output it did not print, in that order:\n" + \
                    "".join(f"  {line}\n" for line in missing) + ")"
                code = "0, but other output"
            if code == 0:
                passed += 1
                print(f"ok   {block.where}")
                continue
            failed += 1
            why = "timed out" if code is None else code if code == not_run else f"exit {code}"
            print(f"FAIL {block.where} ({why}); the block ran:")
            print("".join(f"    | {line}\n" for line in script.splitlines()), end="")
            print("  and printed:")
            lines = output.splitlines()
            if len(lines) > 2 * REPORT_LINES:  # the start and the end say what went wrong
                lines = lines[:REPORT_LINES] + [
                    f"... {len(lines) - 2 * REPORT_LINES} lines ..."] + lines[-REPORT_LINES:]
            print("".join(f"    > {line[:400]}\n" for line in lines), end="")
    finally:
        server.stop()
    return passed, failed


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", default=os.environ.get("INDELIBLE_BIN",
                                                        ROOT / "build/dev/src/cli/indelible"))
    parser.add_argument("files", nargs="*", type=Path)
    args = parser.parse_args()
    binary = str(Path(args.bin).resolve())
    if not os.access(binary, os.X_OK):
        sys.exit(f"test-docs: no indelible binary at {binary} (set INDELIBLE_BIN)")
    files = [f.resolve() for f in args.files] or [ROOT / "README.md",
                                                  *sorted((ROOT / "docs").glob("*.md"))]

    scratch = tempfile.mkdtemp(prefix="indelible-docs.")
    passed = failed = 0
    try:
        for path in files:
            blocks = [b for b in fenced_blocks(path) if is_runnable(b)]
            for block in blocks:
                language = block.info.split()[0]
                if language not in SHELLS:
                    sys.exit(f"test-docs: {block.where}: a runnable block is sh, bash, shell or "
                             f"console, not `{language}`")
                unknown = options(block) - OPTIONS
                if unknown:
                    sys.exit(f"test-docs: {block.where}: unknown option(s) after `runnable`: "
                             f"{' '.join(sorted(unknown))} (known: {' '.join(sorted(OPTIONS))})")
            if not blocks:
                continue
            print(f"== {shown_path(path)}: {len(blocks)} runnable block(s)")
            p, f = run_file(path, blocks, binary, scratch)
            passed, failed = passed + p, failed + f
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
