package sirocco.jit.testkernels;

import sirocco.api.Bf16;
import sirocco.api.Int4;
import sirocco.api.Kernel;
import sirocco.api.KernelContext;
import sirocco.api.Specialize;
import sirocco.api.Vec;

/** Kernels shaped like the shipped ones, to exercise the passes together. */
public final class RealisticKernels {
  private RealisticKernels() {}

  private static float dequant(int q, float scale, float bias) {
    return q * scale + bias;
  }

  /**
   * Affine-quantized matrix-vector product, one thread per row {@code r < rows}: {@code wq} packs
   * {@code bits}-bit weights little-endian in ints (row-major, cols values per row), {@code scales}
   * and {@code biases} hold one bf16 per group of {@code groupSize} columns; y[r] = sum_c x[c] *
   * (q[r][c] * scale + bias). cols must be a multiple of groupSize and of 32/bits*4. Inputs: any
   * ints for wq, any bf16 bits for scales/biases, any floats for x (NaN propagates).
   */
  @Kernel(validateWith = {"bits=4,groupSize=64", "bits=8,groupSize=32", "bits=2,groupSize=128"})
  public static void qmatvec(
      KernelContext ctx,
      int[] wq,
      short[] scales,
      short[] biases,
      float[] x,
      float[] y,
      int rows,
      int cols,
      @Specialize int bits,
      @Specialize int groupSize) {
    int r = ctx.globalIdx;
    if (r >= rows) {
      return;
    }
    int perWord = 32 / bits;
    int mask = (1 << bits) - 1;
    int wordsPerRow = cols / perWord;
    int groups = cols / groupSize;
    float acc = 0f;
    for (int g = 0; g < groups; g++) {
      float scale = Bf16.toFloat(scales[r * groups + g]);
      float bias = Bf16.toFloat(biases[r * groups + g]);
      int firstWord = r * wordsPerRow + g * (groupSize / perWord);
      for (int w = 0; w < groupSize / perWord; w += 4) {
        Int4 packed = Vec.ldg4(wq, firstWord + w);
        int c = g * groupSize + w * perWord;
        acc += dot(packed.x(), x, c, perWord, bits, mask, scale, bias);
        acc += dot(packed.y(), x, c + perWord, perWord, bits, mask, scale, bias);
        acc += dot(packed.z(), x, c + 2 * perWord, perWord, bits, mask, scale, bias);
        acc += dot(packed.w(), x, c + 3 * perWord, perWord, bits, mask, scale, bias);
      }
    }
    y[r] = acc;
  }

  private static float dot(
      int word, float[] x, int c, int perWord, int bits, int mask, float scale, float bias) {
    float s = 0f;
    for (int k = 0; k < perWord; k++) {
      s = Math.fma(x[c + k], dequant((word >>> (k * bits)) & mask, scale, bias), s);
    }
    return s;
  }

  /**
   * Row softmax, one warp per row (launch rows*32 threads in blocks of 128): out[row][c] = exp(in -
   * max) / sum, cols ≤ 32*8.
   */
  @Kernel(validateWith = "perLane=8")
  public static void softmax(
      KernelContext ctx, float[] in, float[] out, int rows, int cols, @Specialize int perLane) {
    int row = ctx.globalIdx >> 5;
    int lane = ctx.laneId();
    if (row >= rows) {
      return;
    }
    float max = Float.NEGATIVE_INFINITY;
    for (int k = 0; k < perLane; k++) {
      int c = lane + 32 * k;
      if (c < cols) {
        max = Math.max(max, in[row * cols + c]);
      }
    }
    for (int m = 16; m > 0; m >>= 1) {
      max = Math.max(max, ctx.shuffleXor(max, m));
    }
    float sum = 0f;
    for (int k = 0; k < perLane; k++) {
      int c = lane + 32 * k;
      if (c < cols) {
        sum += (float) Math.exp(in[row * cols + c] - max);
      }
    }
    for (int m = 16; m > 0; m >>= 1) {
      sum += ctx.shuffleXor(sum, m);
    }
    float inv = 1f / sum;
    for (int k = 0; k < perLane; k++) {
      int c = lane + 32 * k;
      if (c < cols) {
        out[row * cols + c] = (float) Math.exp(in[row * cols + c] - max) * inv;
      }
    }
  }

  /**
   * C = A·B for n×n row-major floats (n a multiple of tile), blocks of tile×tile threads laid out
   * 1-D (thread t is row t / tile, column t % tile of the block's tile of C); grid (n/tile)^2.
   */
  @Kernel(validateWith = {"tile=16", "tile=8"})
  public static void tiledMatmul(
      KernelContext ctx, float[] a, float[] b, float[] c, int n, @Specialize int tile) {
    float[] ta = ctx.allocateFloatLocalArray(tile * tile);
    float[] tb = ctx.allocateFloatLocalArray(tile * tile);
    int t = ctx.localIdx;
    int ty = t / tile;
    int tx = t % tile;
    int tilesPerRow = n / tile;
    int row = (ctx.groupIdx / tilesPerRow) * tile + ty;
    int col = (ctx.groupIdx % tilesPerRow) * tile + tx;
    float acc = 0f;
    for (int k0 = 0; k0 < n; k0 += tile) {
      ta[t] = a[row * n + k0 + tx];
      tb[t] = b[(k0 + ty) * n + col];
      ctx.localBarrier();
      for (int k = 0; k < tile; k++) {
        acc = Math.fma(ta[ty * tile + k], tb[k * tile + tx], acc);
      }
      ctx.localBarrier();
    }
    c[row * n + col] = acc;
  }
}
