#!/usr/bin/env python3
"""The memory report table of docs/kernels.md ("Memory"): every shipped kernel run with
`ipusim run --memory-report` on its chip, one markdown row per kernel from the report's
JSON (docs/memory_report.md). Reruns in a few minutes on two host threads:

    scripts/memory_report_table.py [--build build] [--threads 2] [--kernels gemm,jacobi]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

# (ELF, config): the single-IPU kernels on a GC200, the ones across IPUs on an IPU-M2000.
KERNELS = [
    ("allreduce", "configs/gc200.yaml"),
    ("jacobi", "configs/gc200.yaml"),
    ("gemm", "configs/gc200.yaml"),
    ("gemm_small", "configs/gc200.yaml"),
    ("mb_exchange_bw", "configs/gc200.yaml"),
    ("mb_latency", "configs/gc200.yaml"),
    ("mb_sync", "configs/gc200.yaml"),
    ("stream", "configs/gc200.yaml"),
    ("mb_sram_bw", "configs/gc200.yaml"),
    ("ipu_allreduce", "configs/m2000.yaml"),
    ("pipeline", "configs/m2000.yaml"),
    ("mb_link_bw", "configs/m2000.yaml"),
]


def kib(n):
    return f"{n / 1024:.1f}"


def row(name, config, report):
    b = report["bytes"]
    s = report["summary"]
    threads = {t["thread"]: t for t in s["threads"]}
    sup = threads.get(0)
    workers = [t for k, t in threads.items() if k > 0 and t["tiles"] > 0]
    worst = max(workers, key=lambda t: t["high_water_max"]["bytes"], default=None)

    def stack(t):
        if not t or not t["high_water_max"]:
            return "-"
        return f"{t['high_water_max']['bytes']} / {t['bytes']}"

    return "| `{}.elf` | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |".format(
        name, os.path.basename(config).removesuffix(".yaml"), s["tiles"],
        kib(b["code"] + b["rodata"]), kib(b["data"] + b["bss"]),
        kib(s["heap_used_max"]["bytes"]), stack(sup),
        stack(worst) + (f" (worker {worst['thread']})" if worst else ""),
        kib(s["exchange_in_max"]["bytes"]), kib(s["free_min"]["bytes"]), len(report["warnings"]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--threads", default="2")
    ap.add_argument("--kernels", default="", help="comma-separated names (default: all)")
    a = ap.parse_args()
    chosen = set(a.kernels.split(",")) if a.kernels else None
    print("| kernel | chip | tiles | code + rodata KiB | data + bss KiB | heap used KiB (max) | "
          "supervisor stack B (max high-water / size) | worker stack B (the deepest worker) | "
          "exchange in KiB (max) | free KiB (min) | warnings |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for name, config in KERNELS:
            if chosen and name not in chosen:
                continue
            out = os.path.join(tmp, name + ".json")
            cmd = [os.path.join(a.build, "bin", "ipusim"), "run", "--config", config, "--elf",
                   os.path.join(a.build, "firmware", name + ".elf"), "--threads", a.threads, "--quiet",
                   "--console", "raw", "--memory-report", out]
            r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            if r.returncode != 0 or not os.path.exists(out):
                sys.exit(f"{' '.join(cmd)}: exit {r.returncode}\n{r.stderr}")
            with open(out) as f:
                print(row(name, config, json.load(f)), flush=True)


if __name__ == "__main__":
    main()
