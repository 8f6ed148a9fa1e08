"""This machine as the lab's "card": the figures of core/data/hardware/cpu-2core.toml.

vLLM's CPU worker runs its model on one core (it binds one OpenMP thread and reserves the
other core for the API server: "core ids=[0]", "reserved_cpus=[1]" in its log), so the
figures are one thread's, measured with the torch the server uses:
- bandwidth: a copy of a 256 MiB float32 tensor (read + write bytes over the time);
- fp32 peak: a 1024 x 1024 x 1024 matmul (2 n^3 FLOPs over the time);
- memory: the machine's MemTotal (the KV pool is given to vLLM in bytes anyway).
Prints median, min and max over the repeats. Usage: (vllm venv python) measure_card.py [REPEATS]
"""
from __future__ import annotations

import statistics
import sys
import time

import torch


def timed(fn, repeats: int) -> list[float]:
    fn()  # warm: page faults and the first call's setup
    out = []
    for _ in range(repeats):
        began = time.perf_counter()
        fn()
        out.append(time.perf_counter() - began)
    return out


def main(repeats: int) -> None:
    torch.set_num_threads(1)
    src = torch.ones(64 * 2**20)  # 256 MiB of float32
    dst = torch.empty_like(src)
    copy = [2 * src.numel() * 4 / t for t in timed(lambda: dst.copy_(src), repeats)]
    n = 1024
    a, b = torch.randn(n, n), torch.randn(n, n)
    mm = [2 * n**3 / t for t in timed(lambda: a @ b, repeats)]
    with open("/proc/meminfo") as f:
        mem_kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
    for name, xs, unit, scale in (("copy bandwidth", copy, "GB/s", 1e9), ("fp32 matmul", mm, "GFLOP/s", 1e9)):
        print(f"{name}: median {statistics.median(xs) / scale:.2f} {unit} "
              f"(min {min(xs) / scale:.2f}, max {max(xs) / scale:.2f}, {len(xs)} repeats)")
    print(f"memory: {mem_kib / 2**20:.2f} GiB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
