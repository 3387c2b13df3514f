"""PyTorch reference for `tornado bench sdpa --prefill` (and decode), measured on the same GPU in the same
device call. Not part of Sirocco: a comparison point, run only on the GPU machine (PyTorch is there).

Times torch.nn.functional.scaled_dot_product_attention with a forced backend (cuDNN, flash) on bf16
[B=1, H, L, D] inputs with GQA, by CUDA-graph replay of 20 calls between CUDA events, median of 15 replays
after warm-up. Prints one line per (shape, backend): µs per call, or why the backend refused.

With --rotate, K and V come in as many copies as `tornado bench sdpa` rotates through (min(32,
ceil(256 MiB / K+V bytes)), GpuTiming.copiesFor) and the graph cycles through all of them (max(20, copies)
calls), so both sides read K/V under the same cache conditions; without it every call reuses one K/V pair,
which stays in the 60 MB L2 at small sizes.
"""
import argparse
import statistics
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def time_call(fns, calls=20, replays=15):
    """fns: the calls to cycle through (one per K/V copy); the graph holds max(calls, len(fns))."""
    calls = max(calls, len(fns))
    fn_at = lambda i: fns[i % len(fns)]
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(max(3, len(fns))):
            fn_at(i)()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn_at(i)()
    g.replay()
    torch.cuda.synchronize()
    times = []
    for _ in range(replays):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        torch.cuda.synchronize()
        times.append(a.elapsed_time(b) * 1000.0 / calls)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--prefill", action="store_true")
    p.add_argument("--hq", type=int, default=32)
    p.add_argument("--hkv", type=int, default=8)
    p.add_argument("--rotate", action="store_true", help="rotate K/V copies as tornado bench sdpa does")
    p.add_argument("--seq", type=str, default=None, help="comma-separated lengths (default: the issue's)")
    args = p.parse_args()
    torch.manual_seed(0)
    if args.prefill:
        lengths = [int(x) for x in args.seq.split(",")] if args.seq else (512, 2048, 8192)
        cells = [(L, L, D, causal) for L in lengths for D in (64, 128) for causal in (False, True)]
        backends = ["cudnn", "flash"]
    else:
        lengths = [int(x) for x in args.seq.split(",")] if args.seq else (1024, 8192, 32768)
        cells = [(1, S, D, False) for S in lengths for D in (64, 128, 256, 512)]
        backends = ["cudnn", "flash", "efficient"]
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    for lq, lkv, d, causal in cells:
        q = torch.randn(1, args.hq, lq, d, device="cuda", dtype=torch.bfloat16)
        kv_bytes = 2 * args.hkv * lkv * d * 2
        copies = min(32, -(-(256 << 20) // kv_bytes)) if args.rotate else 1
        kvs = [(torch.randn(1, args.hkv, lkv, d, device="cuda", dtype=torch.bfloat16),
                torch.randn(1, args.hkv, lkv, d, device="cuda", dtype=torch.bfloat16)) for _ in range(copies)]
        for name in backends:
            label = (f"torch {name:9s} Lq={lq} Lkv={lkv} D={d}{' causal' if causal else ''}"
                     f"{f' rotated x{copies}' if args.rotate else ''}")
            try:
                with sdpa_kernel(BACKENDS[name]):
                    fns = [lambda k=k, v=v: F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                                           enable_gqa=True)
                           for k, v in kvs]
                    us = time_call(fns)
                print(f"{label}: {us:.2f} us")
            except Exception as e:  # a backend that refuses the shape says so
                print(f"{label}: n/a ({str(e).splitlines()[0][:120]})")


if __name__ == "__main__":
    main()
