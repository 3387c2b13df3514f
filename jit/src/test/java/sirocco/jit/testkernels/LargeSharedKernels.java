package sirocco.jit.testkernels;

import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Vec;

/**
 * Shared arrays that together exceed the 48 KiB a kernel may declare statically: {@link
 * #largeShared} allocates {@link #WORDS} floats and {@link #WORDS} ints (40 KiB each, 80 KiB in
 * all), which the compiler places in dynamic shared memory (one {@code .extern .shared} window, the
 * int array at byte offset 40960) and the CUDA runtime launches with 80 KiB of dynamic shared
 * memory after opting in. The kernel code is the same as for static arrays.
 *
 * <p>Launched with 1-D blocks of {@link #BLOCK} threads, {@link #BLOCKS} blocks; every array
 * argument has at least 8192 elements ({@link #MASK} + 1). Block {@code g} fills both arrays,
 * thread {@code t} taking every {@code BLOCK}-th element (int chunks of four) from its own:
 *
 * <ul>
 *   <li>{@code F(j) = in[(3j + 77g) & MASK]}, plain stores;
 *   <li>{@code K(j) = ints[(j + 512g) & MASK]}, 16-byte {@code Vec.copyAsync} copies of four ints
 *       ({@code cp.async} into the dynamic window), then {@code waitAsync(0)};
 * </ul>
 *
 * <p>then a barrier, and thread {@code t} writes outputs {@code q = 32t .. 32t + 31} (elements
 * mostly other threads wrote, every element of both arrays read by some thread), at {@code o =
 * 4096g + q}: {@code out[o] = (K(q) + 3K(W-1-q) + 5K(q+4096) + [q < 2048] 7K(q+8192)) ^
 * 31·bits(F(q)) ^ bits(F(q+4096)) ^ [q < 2048] bits(F(q+8192))} and {@code fout[o] = F(W-1-q)},
 * with {@code W = WORDS} and {@code bits} = {@code Float.floatToRawIntBits}. An array placed over
 * the other, or a wrong offset, changes these.
 */
public final class LargeSharedKernels {
  private LargeSharedKernels() {}

  /** Threads per block the kernel is written for. */
  public static final int BLOCK = 128;

  /** Blocks of a test launch: {@code BLOCKS * 4096} outputs, the test inputs' 8192 elements. */
  public static final int BLOCKS = 2;

  /** Elements of each shared array: 40 KiB of floats, 40 KiB of ints. */
  public static final int WORDS = 10 * 1024;

  /** Input indexes wrap at 8192 elements. */
  public static final int MASK = 8191;

  /** Outputs per block. */
  public static final int OUTS = 4096;

  @Kernel
  public static void largeShared(
      KernelContext ctx, float[] in, int[] ints, int[] out, float[] fout) {
    float[] f = ctx.allocateFloatLocalArray(WORDS);
    int[] k = ctx.allocateIntLocalArray(WORDS);
    int t = ctx.localIdx;
    int g = ctx.groupIdx;
    for (int c = t; c < WORDS / 4; c += BLOCK) {
      Vec.copyAsync(k, 4 * c, ints, (4 * c + 512 * g) & MASK, 16);
    }
    Vec.commitAsync();
    for (int j = t; j < WORDS; j += BLOCK) {
      f[j] = in[(3 * j + 77 * g) & MASK];
    }
    Vec.waitAsync(0);
    ctx.localBarrier();
    for (int r = 0; r < 32; r++) {
      int q = 32 * t + r;
      int o = OUTS * g + q;
      int ks = k[q] + 3 * k[WORDS - 1 - q] + 5 * k[q + 4096];
      int fb = 31 * Float.floatToRawIntBits(f[q]) ^ Float.floatToRawIntBits(f[q + 4096]);
      if (q < 2048) {
        ks += 7 * k[q + 8192];
        fb ^= Float.floatToRawIntBits(f[q + 8192]);
      }
      out[o] = ks ^ fb;
      fout[o] = f[WORDS - 1 - q];
    }
  }
}
