"""PyTorch reference for `tornado bench sdpa --prefill` (and decode), measured on the same GPU in the same
device call. Not part of Sirocco: a comparison point, run only on the GPU machine (PyTorch is there).

Times torch.nn.functional.scaled_dot_product_attention with a forced backend (cuDNN, flash) on bf16
[B=1, H, L, D] inputs with GQA, by CUDA-graph replay of 20 calls between CUDA events, median of 15 replays
after warm-up. Prints one line per (shape, backend): µs per call, or why the backend refused.
"""
import argparse
import statistics
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

BACKENDS = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
            "efficient": SDPBackend.EFFICIENT_ATTENTION}


def time_call(fn, calls=20, replays=15):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
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
    args = p.parse_args()
    torch.manual_seed(0)
    if args.prefill:
        cells = [(L, L, D, causal) for L in (512, 2048, 8192) for D in (64, 128) for causal in (False, True)]
        backends = ["cudnn", "flash"]
    else:
        cells = [(1, S, D, False) for S in (1024, 8192, 32768) for D in (64, 128, 256, 512)]
        backends = ["cudnn", "flash", "efficient"]
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}")
    for lq, lkv, d, causal in cells:
        q = torch.randn(1, args.hq, lq, d, device="cuda", dtype=torch.bfloat16)
        k = torch.randn(1, args.hkv, lkv, d, device="cuda", dtype=torch.bfloat16)
        v = torch.randn(1, args.hkv, lkv, d, device="cuda", dtype=torch.bfloat16)
        for name in backends:
            label = f"torch {name:9s} Lq={lq} Lkv={lkv} D={d}{' causal' if causal else ''}"
            try:
                with sdpa_kernel(BACKENDS[name]):
                    fn = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True)
                    us = time_call(fn)
                print(f"{label}: {us:.2f} us")
            except Exception as e:  # a backend that refuses the shape says so
                print(f"{label}: n/a ({str(e).splitlines()[0][:120]})")


if __name__ == "__main__":
    main()
