package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import org.junit.jupiter.api.Test;
import sirocco.jit.testkernels.AtomicKernels;
import sirocco.jit.testutil.ThreadedContext;

/**
 * {@code KernelContext.threadFence()} in the "last block" pattern, run as Java threads: one block
 * combines every block's partial and resets the counter, so a second launch on the same counter
 * gives the same result. (The PTX side is in {@link GoldenPtxTest}; ptxas validation and the GPU
 * differential test cover the kernel through {@link TestKernels}.)
 */
class ThreadFenceTest {
  @Test
  void lastBlockCombinesAndResetsTheCounter() {
    Method m = TestKernels.method(AtomicKernels.class, "lastBlockSum");
    int blocks = 7;
    int block = 32;
    int n = blocks * block - 5;
    int[] in = new int[n];
    int want = 0;
    for (int i = 0; i < n; i++) {
      in[i] = i % 13 - 6;
      want += in[i];
    }
    int[] partial = new int[blocks];
    int[] counter = new int[1];
    for (int run = 0; run < 2; run++) {
      int[] out = new int[2];
      ThreadedContext.launch(
          blocks,
          block,
          ctx -> {
            try {
              m.invoke(null, ctx, in, partial, counter, out, n);
            } catch (InvocationTargetException | IllegalAccessException e) {
              throw new IllegalStateException(e);
            }
          });
      assertArrayEquals(new int[] {want, 1}, out, "run " + run);
      assertEquals(0, counter[0], "the last block resets the counter");
    }
  }
}
