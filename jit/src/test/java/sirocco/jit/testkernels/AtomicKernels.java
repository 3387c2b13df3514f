package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;

/**
 * Atomics on global and shared arrays. One thread per element of {@code in}; counters starts as {0,
 * 0, MIN_VALUE, MAX_VALUE, 0, 0, 0, 0}; fsum[0] starts at 0. Afterwards: counters[0] = number of
 * threads, counters[1] = sum of in, counters[2] = max, counters[3] = min, counters[4] = 1 (the
 * single successful CAS from 0), counters[5] = some thread's in value (exchange), counters[6] =
 * number of threads per block summed through a shared counter; fsum[0] = sum of (float) in. old[g]
 * holds each thread's atomicAdd result (a permutation of 0..n-1).
 */
public final class AtomicKernels {
  private AtomicKernels() {}

  @Kernel
  public static void atomics(
      KernelContext ctx, int[] in, int[] counters, float[] fsum, int[] old, int n) {
    int[] local = ctx.allocateIntLocalArray(1);
    int g = ctx.globalIdx;
    if (ctx.localIdx == 0) {
      local[0] = 0;
    }
    ctx.localBarrier();
    if (g < n) {
      int v = in[g];
      old[g] = ctx.atomicAdd(counters, 0, 1);
      ctx.atomicAdd(counters, 1, v);
      ctx.atomicMax(counters, 2, v);
      ctx.atomicMin(counters, 3, v);
      ctx.atomicCas(counters, 4, 0, 1);
      ctx.atomicExchange(counters, 5, v);
      ctx.atomicAdd(fsum, 0, (float) v);
      ctx.atomicAdd(local, 0, 1);
    }
    ctx.localBarrier();
    if (ctx.localIdx == 0) {
      ctx.atomicAdd(counters, 6, local[0]);
    }
  }

  /**
   * Spin-free flag read: out[g] = ctx.loadVolatile(flags, g) + 1 (flags are written by the host
   * before launch).
   */
  @Kernel
  public static void volatileRead(KernelContext ctx, int[] flags, int[] out, int n) {
    int g = ctx.globalIdx;
    if (g < n) {
      out[g] = ctx.loadVolatile(flags, g) + 1;
    }
  }

  /**
   * Waits until flag[0] becomes nonzero or {@code timeoutNanos & 0xFFFFFF} pass on the global
   * timer; out[i] = 1 when the flag was seen, 2 on timeout. Exercises {@code
   * Intrinsics.globalTimerNanos()} (two reads per iteration that must not be merged).
   */
  @Kernel
  public static void waitForFlag(
      KernelContext ctx, int[] flag, int[] out, long timeoutNanos, int n) {
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    long limit = timeoutNanos & 0xFFFFFFL; // at most ~17 ms whatever the random input
    long start = sirocco.api.Intrinsics.globalTimerNanos();
    int result = 2;
    while (sirocco.api.Intrinsics.globalTimerNanos() - start < limit) {
      if (ctx.loadVolatile(flag, 0) != 0) {
        result = 1;
        break;
      }
    }
    out[i] = result;
  }

  /**
   * The "last block" pattern with {@code threadFence()}: block b writes the sum of its threads'
   * {@code in} values to {@code partial[b]}; the block that increments {@code counter[0]} last adds
   * every block's partial with plain (coherent) loads into {@code out[0]} and resets the counter to
   * 0. {@code counter[0]} must be 0 before the launch (and is 0 after it); {@code out[1]} is the
   * number of blocks that saw themselves last (1).
   */
  @Kernel
  public static void lastBlockSum(
      KernelContext ctx, int[] in, int[] partial, int[] counter, int[] out, int n) {
    int[] sh = ctx.allocateIntLocalArray(2);
    int g = ctx.globalIdx;
    if (ctx.localIdx == 0) {
      sh[0] = 0;
    }
    ctx.localBarrier();
    if (g < n) {
      ctx.atomicAdd(sh, 0, in[g]);
    }
    ctx.localBarrier();
    if (ctx.localIdx == 0) {
      partial[ctx.groupIdx] = sh[0];
      ctx.threadFence(); // the partial is visible device-wide before the count
      int before = ctx.atomicAdd(counter, 0, 1);
      boolean last = before == ctx.groupCountX - 1;
      if (last) {
        ctx.threadFence(); // acquire: the other blocks' partials are visible from here on
      }
      sh[1] = last ? 1 : 0;
    }
    ctx.localBarrier();
    if (sh[1] != 0 && ctx.localIdx == 0) {
      int sum = 0;
      for (int b = 0; b < ctx.groupCountX; b++) {
        sum += partial[b];
      }
      out[0] = sum;
      out[1] += 1;
      counter[0] = 0;
    }
  }
}
