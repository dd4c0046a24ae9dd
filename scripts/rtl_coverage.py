#!/usr/bin/env python3
"""The RTL blocks' coverage from a coverage build's runs (docs/cosim.md "Coverage").

    scripts/rtl_coverage.py COVERAGE_DIR OUT_DIR [--block B ...] [--no-html] [--json FILE]

COVERAGE_DIR holds the files the runs wrote (IPUSIM_RTL_COVERAGE_DIR: <block>.<instance>.
<pid>.<n>.dat, one per model instance). Per block this merges them into OUT_DIR/<block>.dat
(verilator_coverage --write), writes OUT_DIR/<block>.info (--write-info, lcov's format)
and, with genhtml (Debian's lcov) on the PATH, an HTML report in OUT_DIR/<block>/; then
prints one line per block: line, toggle and cover-point coverage, and the cover points
never hit. Exit status 1 if a block has no coverage files, 2 on bad arguments.
"""
import argparse
import collections
import glob
import json
import os
import shutil
import subprocess
import sys

# A point's kind, from its `page` field: v_line/<module> (lines and branches, as Verilator
# counts statement blocks), v_toggle/<module>, v_user/<module> (cover property).
KINDS = {"v_line": "line", "v_branch": "line", "v_toggle": "toggle", "v_user": "cover"}


def points(dat):
    """(kind, key, hierarchy, name, count) of each point in a verilator coverage file."""
    with open(dat, encoding="latin-1") as f:
        for raw in f:
            if not raw.startswith("C '"):
                continue
            body, _, count = raw.rstrip("\n").rpartition("' ")
            fields = {}
            for part in body[3:].split("\x01"):
                if "\x02" in part:
                    k, v = part.split("\x02", 1)
                    fields[k] = v
            kind = KINDS.get(fields.get("page", "").split("/")[0])
            if kind is None:
                continue
            key = (fields.get("f", ""), fields.get("l", ""), fields.get("n", ""), fields.get("o", ""), fields.get("h", ""))
            yield kind, key, fields.get("h", ""), fields.get("o", ""), int(count)


def summarise(dat):
    hit = collections.Counter()
    total = collections.Counter()
    covers = {}
    for kind, _key, hier, name, count in points(dat):
        total[kind] += 1
        hit[kind] += count > 0
        if kind == "cover":
            # A cover point of a module instanced more than once counts once: hit anywhere.
            covers[name] = covers.get(name, 0) + count
    pct = {k: (100.0 * hit[k] / total[k] if total[k] else None) for k in ("line", "toggle", "cover")}
    return {"line_pct": pct["line"], "line_points": total["line"], "toggle_pct": pct["toggle"],
            "toggle_points": total["toggle"], "covers": dict(sorted(covers.items())),
            "covers_missed": sorted(n for n, c in covers.items() if c == 0)}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("coverage_dir")
    ap.add_argument("out_dir")
    ap.add_argument("--block", action="append", default=[], help="only this block (repeatable)")
    ap.add_argument("--no-html", action="store_true", help="skip genhtml")
    ap.add_argument("--json", help="also write the figures to this file")
    ap.add_argument("--verilator-coverage", default=os.environ.get("VERILATOR_COVERAGE", "verilator_coverage"))
    a = ap.parse_args()
    if not os.path.isdir(a.coverage_dir):
        print(f"rtl_coverage: coverage_dir: no folder {a.coverage_dir}", file=sys.stderr)
        return 2
    blocks = a.block or sorted({os.path.basename(p).split(".")[0] for p in glob.glob(os.path.join(a.coverage_dir, "*.dat"))})
    if not blocks:
        print(f"rtl_coverage: no coverage files (*.dat) in {a.coverage_dir}", file=sys.stderr)
        return 1
    os.makedirs(a.out_dir, exist_ok=True)
    genhtml = None if a.no_html else shutil.which("genhtml")
    figures = {}
    status = 0
    for block in blocks:
        files = sorted(glob.glob(os.path.join(a.coverage_dir, f"{block}.*.dat")))
        if not files:
            print(f"rtl_coverage: {block}: no coverage files ({block}.*.dat) in {a.coverage_dir}", file=sys.stderr)
            status = 1
            continue
        merged = os.path.join(a.out_dir, f"{block}.dat")
        info = os.path.join(a.out_dir, f"{block}.info")
        subprocess.run([a.verilator_coverage, "--write", merged, *files], check=True, stdout=subprocess.DEVNULL)
        subprocess.run([a.verilator_coverage, "--write-info", info, merged], check=True, stdout=subprocess.DEVNULL)
        if genhtml:
            subprocess.run([genhtml, "--quiet", "--output-directory", os.path.join(a.out_dir, block), info],
                           check=True, stdout=subprocess.DEVNULL)
        f = summarise(merged)
        f["files"] = len(files)
        figures[block] = f
        covers = f["covers"]
        hit = sum(1 for c in covers.values() if c > 0)
        line = "-" if f["line_pct"] is None else f"{f['line_pct']:.1f}%"
        toggle = "-" if f["toggle_pct"] is None else f"{f['toggle_pct']:.1f}%"
        print(f"{block}: line {line} of {f['line_points']}, toggle {toggle} of {f['toggle_points']}, "
              f"cover points {hit} of {len(covers)} hit ({len(files)} files)"
              + (f"; never hit: {', '.join(f['covers_missed'])}" if f["covers_missed"] else ""))
    if genhtml is None and not a.no_html:
        print("rtl_coverage: no genhtml on the PATH (Debian's lcov): lcov .info files only", file=sys.stderr)
    if a.json:
        with open(a.json, "w", encoding="utf-8") as out:
            json.dump(figures, out, indent=1, sort_keys=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
