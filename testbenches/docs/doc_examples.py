#!/usr/bin/python3
"""Runs the examples of the documentation and checks what they print.

  doc_examples.py FLYNN_BINARY SOURCE_DIR [DOC.md ...]

In README.md and docs/**/*.md (or the documents named):

- a fenced block preceded by the line `<!-- file: PATH -->` is written to PATH;
- a ```console block is a session: each line starting with "$ " is a command, run by bash
  in the document's working folder (`flynn` is the binary under test, `scripts/` and
  `workloads/` the source tree's, `scenarios/` and `sweeps/` copies of the source tree's); a trailing
  "  # exit N" is the exit status it must end with (else 0). The lines after a command, up
  to the next one, must appear in its output (stdout and stderr), in that order, other
  lines between them allowed; in a line, "[...]" stands for any text; a line "..." is
  skipped.

Each document gets a fresh working folder, and its sessions run in the order they appear,
so a tutorial's steps build on each other. Prints one line per command; exits 1 when one
fails.
"""
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tempfile

FILE_MARK = re.compile(r"^<!-- file: (\S+) -->\s*$")
EXIT_MARK = re.compile(r"\s+# exit (\d+)\s*$")


def blocks(text):
    """(kind, info, lines, line number) for each fenced block; kind is 'file' or 'console'."""
    lines = text.split("\n")
    i, pending_file = 0, None
    while i < len(lines):
        m = FILE_MARK.match(lines[i])
        if m:
            pending_file = m.group(1)
            i += 1
            continue
        if lines[i].startswith("```"):
            lang = lines[i][3:].strip()
            start = i + 1
            j = start
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            body = lines[start:j]
            if pending_file:
                yield ("file", pending_file, body, start)
            elif lang == "console":
                yield ("console", None, body, start)
            pending_file = None
            i = j + 1
            continue
        if lines[i].strip():
            pending_file = None  # the mark names the block right after it
        i += 1


def pattern(line):
    parts = [re.escape(p) for p in line.split("[...]")]
    return re.compile("^" + ".*".join(parts) + "$")


def check_output(expected, output):
    out = output.split("\n")
    k = 0
    for e in expected:
        if e.strip() == "...":
            continue
        p = pattern(e.rstrip())
        while k < len(out) and not p.match(out[k].rstrip()):
            k += 1
        if k == len(out):
            return e
        k += 1
    return None


def write_file(root, path, body):
    """Writes a file block's lines to root/path."""
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("\n".join(body) + "\n")


def run_document(doc, flynn, src, counter):
    work = pathlib.Path(tempfile.mkdtemp(prefix="flynn-doc-"))
    failures = 0
    try:
        bindir = work / ".bin"
        bindir.mkdir()
        (bindir / "flynn").write_text(f'#!/bin/sh\nexec "{flynn}" "$@"\n')
        (bindir / "flynn").chmod(0o755)
        for d in ("scenarios", "sweeps"):
            shutil.copytree(src / d, work / d)
        for d in ("scripts", "workloads"):  # read only
            os.symlink(src / d, work / d)
        env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", SYSTEMC_DISABLE_COPYRIGHT_MESSAGE="1")
        env.pop("FLYNN_OUT", None)
        rel = doc.relative_to(src)
        for kind, info, body, line in blocks(doc.read_text()):
            if kind == "file":
                write_file(work, info, body)
                continue
            cmds = []
            for n, l in enumerate(body):
                if l.startswith("$ "):
                    cmds.append([l[2:], [], line + n + 1])
                elif cmds:
                    cmds[-1][1].append(l)
            for cmd, expected, at in cmds:
                status = 0
                m = EXIT_MARK.search(cmd)
                if m:
                    status = int(m.group(1))
                    cmd = cmd[: m.start()]
                r = subprocess.run(["bash", "-c", cmd], cwd=work, env=env, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT, text=True, timeout=600)
                counter[0] += 1
                where = f"{rel}:{at}: $ {cmd}"
                missing = check_output(expected, r.stdout)
                if r.returncode != status:
                    print(f"FAIL {counter[0]} - {where}: exit status {r.returncode}, expected {status}\n{r.stdout[-3000:]}")
                    failures += 1
                elif missing is not None:
                    print(f"FAIL {counter[0]} - {where}: no line matching\n    {missing}\nin its output:\n{r.stdout[-3000:]}")
                    failures += 1
                else:
                    print(f"ok {counter[0]} - {where}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return failures


def main():
    if len(sys.argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    flynn = pathlib.Path(sys.argv[1]).resolve()
    src = pathlib.Path(sys.argv[2]).resolve()
    docs = [pathlib.Path(d).resolve() for d in sys.argv[3:]] or \
        [src / "README.md"] + sorted((src / "docs").rglob("*.md"))
    counter = [0]
    failures = 0
    documents = 0
    for doc in docs:
        if "```console" not in doc.read_text():
            continue
        documents += 1
        failures += run_document(doc, flynn, src, counter)
    if counter[0] == 0:
        print("FAIL - no console example found")
        return 1
    print(f"{counter[0] - failures} of {counter[0]} commands in {documents} documents printed what the documents say")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
