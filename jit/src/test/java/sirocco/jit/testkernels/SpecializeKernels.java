package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;

/**
 * {@code @Specialize} parameters: shared-array lengths, loop bounds and branches depending on them
 * are folded; code made unreachable (including a throw) disappears.
 */
public final class SpecializeKernels {
  private SpecializeKernels() {}

  /**
   * Unpacks {@code bits}-bit unsigned values (bits in {2, 4, 8}) packed little-endian in 32-bit
   * words: out[i] = value i of the stream, for i < n. One thread per output value.
   */
  @Kernel(validateWith = {"bits=2", "bits=4", "bits=8"})
  public static void unpack(
      KernelContext ctx, int[] words, int[] out, int n, @Specialize int bits) {
    if (bits != 2 && bits != 4 && bits != 8) {
      throw new IllegalArgumentException("bits must be 2, 4 or 8");
    }
    int i = ctx.globalIdx;
    if (i >= n) {
      return;
    }
    int perWord = 32 / bits;
    int w = words[i / perWord];
    int shift = (i % perWord) * bits;
    out[i] = (w >>> shift) & ((1 << bits) - 1);
  }

  /**
   * Block of {@code tile} threads: each block sums groups of {@code group} consecutive inputs
   * through a shared array of {@code tile} floats. out[groupIdx * (tile/group) + j] = sum of group
   * j of the block's tile.
   */
  @Kernel(validateWith = {"tile=128,group=4", "tile=256,group=8"})
  public static void groupSums(
      KernelContext ctx, float[] in, float[] out, @Specialize int tile, @Specialize int group) {
    float[] s = ctx.allocateFloatLocalArray(tile);
    int t = ctx.localIdx;
    s[t] = in[ctx.groupIdx * tile + t];
    ctx.localBarrier();
    if (t < tile / group) {
      float acc = 0;
      for (int k = 0; k < group; k++) {
        acc += s[t * group + k];
      }
      out[ctx.groupIdx * (tile / group) + t] = acc;
    }
  }

  /** Specialized float and boolean: out[i] = in[i] * scale (+1 if addOne). */
  @Kernel(validateWith = {"scale=0.5,addOne=true"})
  public static void scaled(
      KernelContext ctx,
      float[] in,
      float[] out,
      int n,
      @Specialize float scale,
      @Specialize boolean addOne) {
    int i = ctx.globalIdx;
    if (i < n) {
      out[i] = in[i] * scale + (addOne ? 1f : 0f);
    }
  }
}
