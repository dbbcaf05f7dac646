#!/usr/bin/env python3
"""Runs the shell blocks of README.md and docs/*.md marked runnable
(tests/docs/README.md has the convention), so that a document cannot drift
from the program.

Per file with runnable blocks: a fresh `indelible serve` on 127.0.0.1 (a
free port) with a fresh data folder, and a fresh working directory; its
blocks run there in document order, each with bash -e -o pipefail. A block
that exits non-zero, runs past the timeout or (after a `$ ` prompt) does not
print the output it shows fails, with its file, line and output. The last
line is "N passed, N failed".

    run_docs.py [--bin PATH] [FILE.md ...]   (default: README.md docs/*.md)
"""
import argparse
import os
import re
import shutil
import signal
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
    """`indelible serve` on a free loopback port, on a fresh data folder."""

    def __init__(self, binary, folder):
        self.log = open(folder / "server.log", "w+")
        self.process = subprocess.Popen(
            [binary, "--data", str(folder / "server-data"), "serve", "--listen", "127.0.0.1:0"],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + 30
        self.url = None
        while self.url is None:
            self.log.seek(0)
            m = re.search(r"listening on (http://127\.0\.0\.1:\d+)", self.log.read())
            if m:
                self.url = m.group(1)
            elif self.process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                self.log.seek(0)
                raise RuntimeError("the server did not start:\n" + self.log.read())
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


def run_block(script, workdir, env):
    """Runs a block's script: (exit code or None on timeout, its output)."""
    process = subprocess.Popen(["bash", "-e", "-o", "pipefail", "-c", script], cwd=workdir,
                               env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                               stderr=subprocess.STDOUT, start_new_session=True)
    try:
        output, _ = process.communicate(timeout=BLOCK_TIMEOUT_S)
        code, note = process.returncode, ""
    except subprocess.TimeoutExpired:
        code, note = None, f"\n(still running after {BLOCK_TIMEOUT_S} s: stopped)"
    # What the block left behind (a `cmd &`) goes too: its whole session.
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if code is None:
        output, _ = process.communicate()
    return code, output.decode(errors="replace") + note


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
    address = server.url.removeprefix("http://")
    passed = failed = 0
    try:
        for block in blocks:
            script = DEFAULT_ADDRESS.sub(address, script_of(block))
            code, output = run_block(script, workdir, env)
            printed = output.replace("\r", "")
            missing = [line for line in shown_output(block)
                       if DEFAULT_ADDRESS.sub(address, line) not in printed]
            if code == 0 and missing:
                output += "\n(the document shows output it did not print:\n" + \
                    "".join(f"  {line}\n" for line in missing) + ")"
                code = "0, but other output"
            if code == 0:
                passed += 1
                print(f"ok   {block.where}")
                continue
            failed += 1
            print(f"FAIL {block.where} ({'timed out' if code is None else f'exit {code}'}); the block ran:")
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
