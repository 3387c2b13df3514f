#!/usr/bin/env python3
"""Developer aid: runs the cases written by GpuCaseExporter on a GPU and compares with the CPU.

Usage: gpu_check.py <cases-dir> [<report.json>]
Each case holds kernel.ptx, meta.json, <arg>.in.bin and <arg>.expected.bin (Java's results on the
CPU). The PTX is loaded by the driver (CuPy RawModule), launched 1-D, and every output array is
compared element by element: bit for bit by default (any NaN equals any NaN), within "ulps" where
meta.json's rule says so ("stride"/"offset" restrict the rule to some elements), "sorted" compares
the first N elements as multisets, "skip" ignores indices, "info" only reports.
"""
import json
import os
import sys

import cupy as cp
import numpy as np

INT_OF = {"float32": np.int32, "float64": np.int64}


def compare(name, dtype, exp, got, rule):
    if rule.get("sorted"):
        n = rule["sorted"]
        ok = np.array_equal(np.sort(exp[:n]), np.sort(got[:n]))
        return ([] if ok else [f"{name}[:{n}] differs as a multiset"]), 0
    bad = []
    worst = 0
    if dtype in INT_OF:
        e_nan = np.isnan(exp)
        g_nan = np.isnan(got)
        ei = exp.view(INT_OF[dtype]).astype(np.int64)
        gi = got.view(INT_OF[dtype]).astype(np.int64)
        diff = np.abs(ei - gi)
        diff[e_nan & g_nan] = 0
        diff[e_nan ^ g_nan] = 1 << 40
        allowed = np.zeros(len(exp), dtype=np.int64)
        ulps = rule.get("ulps", 0)
        if "stride" in rule:
            allowed[rule["offset"]::rule["stride"]] = ulps
        else:
            allowed[:] = ulps
        worst = int(diff.max()) if len(diff) else 0
        idx = np.nonzero(diff > allowed)[0]
    else:
        idx = np.nonzero(exp != got)[0]
    for s in rule.get("skip", []):
        idx = idx[idx != s]
    for i in idx[:8]:
        bad.append(f"{name}[{i}]: gpu {got[i]!r} cpu {exp[i]!r}")
    if len(idx) > 8:
        bad.append(f"{name}: {len(idx)} elements differ")
    return bad, worst


def run_case(path):
    meta = json.load(open(os.path.join(path, "meta.json")))
    mod = cp.RawModule(path=os.path.join(path, "kernel.ptx"))
    fn = mod.get_function(meta["entry"])
    args, arrays = [], []
    for p in meta["params"]:
        if "array" in p:
            host = np.fromfile(os.path.join(path, p["name"] + ".in.bin"), dtype=p["array"])
            dev = cp.asarray(host)
            args.append(dev)
            arrays.append((p, dev))
        else:
            args.append(getattr(np, p["scalar"])(p["value"]))
    # Extents are [x, y, z] lists (older exports wrote one number for a 1-D launch).
    grid = tuple(meta["grid"]) if isinstance(meta["grid"], list) else (meta["grid"],)
    block = tuple(meta["block"]) if isinstance(meta["block"], list) else (meta["block"],)
    # Kernels whose shared arrays exceed 48 KiB keep them in dynamic shared memory: opt in, then
    # launch with that many bytes (older exports have no "dynamicShared": 0).
    dyn = int(meta.get("dynamicShared", 0))
    if dyn > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = dyn
    fn(grid, block, tuple(args), shared_mem=dyn)
    cp.cuda.Device().synchronize()
    problems, infos = [], []
    for p, dev in arrays:
        got = cp.asnumpy(dev)
        exp = np.fromfile(os.path.join(path, p["name"] + ".expected.bin"), dtype=p["array"])
        bad, worst = compare(p["name"], p["array"], exp, got, p.get("rule", {}))
        if p.get("rule", {}).get("info"):
            infos.append(f"{p['name']}: max ulp difference {worst}, {len(bad)} reported")
        else:
            problems += bad
    return meta["label"], problems, infos


def main():
    root = sys.argv[1]
    cases = json.load(open(os.path.join(root, "cases.json")))
    report = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode(),
              "driver": cp.cuda.runtime.driverGetVersion(), "cases": []}
    failed = 0
    for c in cases:
        try:
            label, problems, infos = run_case(os.path.join(root, c))
        except Exception as e:  # noqa: BLE001 - report every failure
            label, problems, infos = c, [f"launch failed: {e}"], []
        failed += bool(problems)
        report["cases"].append({"case": label, "ok": not problems, "problems": problems, "info": infos})
        print(("OK   " if not problems else "FAIL ") + label + ("" if not infos else "  " + "; ".join(infos)))
        for p in problems:
            print("     " + p)
    print(f"{len(cases) - failed}/{len(cases)} cases match")
    if len(sys.argv) > 2:
        json.dump(report, open(sys.argv[2], "w"), indent=1)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
