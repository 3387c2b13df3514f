package sirocco.kernels.util;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Array;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sirocco.api.KernelContext;
import sirocco.runtime.host.HostGridRunner;

/**
 * The strided copy kernels on the Java backend against {@link StridedCopy#reference} and against an
 * index computation written here independently (nested loops over the logical view).
 */
class StridedCopyTest {
  private static Method kernel(String name) {
    for (Method m : StridedCopy.class.getMethods()) {
      if (m.getName().equals(name) && m.getParameterTypes()[0] == KernelContext.class) {
        return m;
      }
    }
    throw new AssertionError("no kernel " + name);
  }

  /** A source array of {@code length} distinct values of the given array type (no NaN). */
  private static Object source(Class<?> type, int length, SplittableRandom r) {
    Object a = Array.newInstance(type.getComponentType(), length);
    for (int i = 0; i < length; i++) {
      int x = r.nextInt();
      if (type == byte[].class) {
        Array.setByte(a, i, (byte) x);
      } else if (type == short[].class) {
        Array.setShort(a, i, (short) x);
      } else if (type == int[].class) {
        Array.setInt(a, i, x);
      } else {
        Array.setFloat(a, i, (float) (r.nextDouble() * 100 - 50));
      }
    }
    return a;
  }

  /** Expected element {@code (i0..i3)} of a logical view, computed with nested loops. */
  private static Object expected(
      Object src, Class<?> type, long[] shape, long[] strides, long off, int dstOff, int dstLen) {
    Object out = Array.newInstance(type.getComponentType(), dstLen);
    int rank = shape.length;
    long[] idx = new long[rank];
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    for (long k = 0; k < n; k++) {
      long at = off;
      for (int a = 0; a < rank; a++) {
        at += idx[a] * strides[a];
      }
      Array.set(out, dstOff + (int) k, Array.get(src, (int) at));
      for (int a = rank - 1; a >= 0; a--) {
        if (++idx[a] < shape[a]) {
          break;
        }
        idx[a] = 0;
      }
    }
    return out;
  }

  private static void check(
      Class<?> type, long[] shape, long[] strides, long srcOff, int dstOff, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int srcLen = (int) StridedCopy.maxSourceIndex(shape, strides, srcOff) + 1 + 3;
    Object src = source(type, srcLen, r);
    long n = 1;
    for (long s : shape) {
      n *= s;
    }
    int dstLen = dstOff + (int) n + 2;
    Object want = expected(src, type, shape, strides, srcOff, dstOff, dstLen);
    Object ref = Array.newInstance(type.getComponentType(), dstLen);
    StridedCopy.reference(src, ref, shape, strides, srcOff, dstOff);
    Object got = Array.newInstance(type.getComponentType(), dstLen);
    HostGridRunner.run(
        kernel(StridedCopy.kernelName(type)),
        StridedCopy.grid(n),
        StridedCopy.block(),
        StridedCopy.args(src, got, shape, strides, srcOff, dstOff));
    String what =
        type.getSimpleName()
            + " shape "
            + Arrays.toString(shape)
            + " strides "
            + Arrays.toString(strides)
            + " +"
            + srcOff
            + " -> +"
            + dstOff;
    assertTrue(Arrays.deepEquals(new Object[] {want}, new Object[] {ref}), "reference " + what);
    assertTrue(Arrays.deepEquals(new Object[] {want}, new Object[] {got}), "kernel " + what);
  }

  @Test
  void everyWidthCopiesTransposedAndSlicedViews() {
    long seed = 1;
    for (Class<?> type : new Class<?>[] {byte[].class, short[].class, int[].class, float[].class}) {
      // [2, 3, 5, 4] stored [2, 5, 3, 4] (axes 1 and 2 swapped), offset 7
      check(type, new long[] {2, 3, 5, 4}, new long[] {60, 4, 12, 1}, 7, 0, seed++);
      // a slice of rows 2..6 of a [2, 3, 9, 4] cache
      check(type, new long[] {2, 3, 4, 4}, new long[] {108, 36, 4, 1}, 8, 5, seed++);
      // last axis strided (a column view), rank 2
      check(type, new long[] {6, 5}, new long[] {1, 6}, 0, 0, seed++);
      // rank 1 and rank 3 with a broadcast (stride 0) axis
      check(type, new long[] {9}, new long[] {3}, 2, 1, seed++);
      check(type, new long[] {3, 4, 2}, new long[] {2, 0, 1}, 1, 0, seed++);
      // rank 0 (one element) and an empty view
      check(type, new long[] {}, new long[] {}, 4, 0, seed++);
      check(type, new long[] {2, 0, 3}, new long[] {3, 3, 1}, 0, 0, seed++);
    }
  }

  @Test
  void randomViews() {
    SplittableRandom r = new SplittableRandom(42);
    Class<?>[] types = {byte[].class, short[].class, int[].class, float[].class};
    for (int t = 0; t < 24; t++) {
      int rank = 1 + r.nextInt(4);
      long[] shape = new long[rank];
      for (int a = 0; a < rank; a++) {
        shape[a] = 1 + r.nextInt(5);
      }
      // A permuted dense layout of a larger parent, then a random offset.
      int[] perm = {0, 1, 2, 3};
      for (int a = rank - 1; a > 0; a--) {
        int b = r.nextInt(a + 1);
        int x = perm[a];
        perm[a] = perm[b];
        perm[b] = x;
      }
      long[] strides = new long[rank];
      long acc = 1;
      for (int p = rank - 1; p >= 0; p--) {
        int a = perm[p];
        strides[a] = acc;
        acc *= shape[a] + r.nextInt(3); // padding between rows
      }
      check(types[t % 4], shape, strides, r.nextInt(10), r.nextInt(4), 100 + t);
    }
  }

  @Test
  void hostChecksNameTheProblem() {
    assertEquals("copy16", StridedCopy.kernelName(short[].class));
    assertThrows(IllegalArgumentException.class, () -> StridedCopy.kernelName(long[].class));
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () ->
                StridedCopy.args(
                    null, null, new long[] {1, 1, 1, 1, 1}, new long[] {1, 1, 1, 1, 1}, 0, 0));
    assertTrue(e.getMessage().contains("at most 4 axes"), e.getMessage());
    e =
        assertThrows(
            IllegalArgumentException.class,
            () -> StridedCopy.args(null, null, new long[] {3}, new long[] {1L << 30}, 0, 0));
    assertTrue(e.getMessage().contains("32-bit"), e.getMessage());
    assertEquals(
        3 + 4 * 5 + 2 * 7, StridedCopy.maxSourceIndex(new long[] {5, 3}, new long[] {5, 7}, 3));
    assertArrayEquals(
        new Object[] {null, null, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1},
        StridedCopy.args(null, null, new long[] {0}, new long[] {1}, 0, 0));
  }
}
