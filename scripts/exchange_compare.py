#!/usr/bin/env python3
"""Compare two ipusim builds end to end on the runs the exchange planner serves.

Each case runs `ipusim run --config C --elf E --threads N --json F` with both binaries (the
same ELFs and configs for both) and compares stdout, stderr, the exit status, the JSON and
the effective config it writes (F.config.yaml). Host figures differ run to run and are left
out: JSON keys starting `host_`, holding `seconds` / `mips`, ending `_share`, and
`jit_regions` / `jit_code_bytes`, and the summary's lines that print them. Prints one line per case and run, then a count; exit status 1 if any
differ.

  scripts/exchange_compare.py --before /work/main/build/bin/ipusim --after build/bin/ipusim \
      [--firmware-dir build/firmware] [--threads 1 2 3] [--only NAME ...] [--skip-large] [--keep-json DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Summary lines that print host figures (timings that change run to run).
HOST_LINE = re.compile(r"^\s*(host seconds|host by component|simulated MIPS|elaboration seconds|ISS\s)")
# jit_regions / jit_code_bytes: where regions start depends on which tile reaches code
# first, so on the host threads (docs/platform.md).
HOST_KEY = re.compile(r"^host_|seconds|mips|_share$|^jit_regions$|^jit_code_bytes$", re.IGNORECASE)


def cases(fw, large):
    sysfw = os.path.join(fw, "system")
    tiny4, tiny16 = "configs/test/tiny4.yaml", "configs/test/tiny16.yaml"
    tiny4_m2000 = "configs/test/tiny4_m2000.yaml"
    out = [("ipu_allreduce/tiny4_m2000", tiny4_m2000, os.path.join(fw, "ipu_allreduce.elf")),
           ("alltoall/tiny16", tiny16, os.path.join(sysfw, "alltoall.elf"))]
    for elf in sorted(os.listdir(sysfw)):
        if elf.startswith("xerr_") and elf.endswith(".elf"):
            for name, cfg in (("tiny4", tiny4), ("tiny4_m2000", tiny4_m2000)):
                out.append((f"{elf[:-4]}/{name}", cfg, os.path.join(sysfw, elf)))
    if large:
        out += [("alltoall/gc200", "configs/gc200.yaml", os.path.join(sysfw, "alltoall.elf")),
                ("allreduce/gc200", "configs/gc200.yaml", os.path.join(fw, "allreduce.elf")),
                ("ipu_allreduce/m2000", "configs/m2000.yaml", os.path.join(fw, "ipu_allreduce.elf"))]
    return out


def strip_host(value):
    if isinstance(value, dict):
        return {k: strip_host(v) for k, v in value.items() if not HOST_KEY.search(k)}
    if isinstance(value, list):
        return [strip_host(v) for v in value]
    return value


def run(ipusim, config, elf, threads, tmp, tag, keep):
    path = os.path.join(tmp, tag + ".json")
    r = subprocess.run([ipusim, "run", "--config", config, "--elf", elf, "--threads", str(threads), "--json", path],
                       cwd=ROOT, capture_output=True, text=True)
    lines = lambda text: [l for l in text.splitlines() if not HOST_LINE.match(l)]
    result = {"status": r.returncode, "stdout": lines(r.stdout), "stderr": lines(r.stderr)}
    try:
        with open(path) as f:
            whole = json.load(f)
        result["json"] = strip_host(whole)
        if keep:  # the host figures too, for the caller to read
            with open(keep, "w") as f:
                json.dump(whole, f)
    except (OSError, ValueError) as e:
        result["json"] = f"no JSON: {e}"
    try:
        with open(path + ".config.yaml") as f:
            result["config"] = f.read()
    except OSError:
        result["config"] = None
    return result


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--firmware-dir", default=os.path.join(ROOT, "build", "firmware"))
    ap.add_argument("--threads", type=int, nargs="+", default=[1, 2, 3])
    ap.add_argument("--only", nargs="*", help="case names to run (prefix match)")
    ap.add_argument("--skip-large", action="store_true", help="leave out the GC200 and M2000 runs")
    ap.add_argument("--keep-json", metavar="DIR", help="keep every run's whole JSON there (NAME.tN.before/after.json)")
    a = ap.parse_args()
    failed = total = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, config, elf in cases(os.path.abspath(a.firmware_dir), not a.skip_large):
            if a.only and not any(name.startswith(o) for o in a.only):
                continue
            for n in a.threads:
                keep = lambda tag: a.keep_json and os.path.join(a.keep_json, f"{name.replace('/', '.')}.t{n}.{tag}.json")
                before = run(a.before, config, elf, n, tmp, "before", keep("before"))
                after = run(a.after, config, elf, n, tmp, "after", keep("after"))
                differ = [k for k in before if before[k] != after[k]]
                total += 1
                failed += bool(differ)
                print(f"{'SAME' if not differ else 'DIFFER'} {name} --threads {n} (exit {after['status']})"
                      + (f": {', '.join(differ)}" if differ else ""), flush=True)
    print(f"{total - failed} of {total} runs the same, {failed} differ")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
