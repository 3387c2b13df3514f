package sirocco.jit.testutil;

import sirocco.api.Float4x16;
import sirocco.api.Int4;
import sirocco.api.KernelContext;

/**
 * The base of the jit tests' CPU contexts: Hopper's warpgroup products and their fences are
 * emulated by the runtime's Java backend (HostKernelContext) only, so here they refuse to run.
 */
abstract class NoWarpgroupContext extends KernelContext {
  @Override
  public Float4x16 warpgroupMmaBf16(Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c) {
    throw new UnsupportedOperationException("warpgroupMmaBf16");
  }

  @Override
  public Float4x16 warpgroupMmaF16(Int4 a, short[] b, int bIndex, int lbo, int sbo, Float4x16 c) {
    throw new UnsupportedOperationException("warpgroupMmaF16");
  }

  @Override
  public Float4x16 warpgroupMmaBf16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c) {
    throw new UnsupportedOperationException("warpgroupMmaBf16Swizzled");
  }

  @Override
  public Float4x16 warpgroupMmaF16Swizzled(
      Int4 a, short[] b, int bIndex, int swizzle, Float4x16 c) {
    throw new UnsupportedOperationException("warpgroupMmaF16Swizzled");
  }

  @Override
  public void warpgroupFence() {
    throw new UnsupportedOperationException("warpgroupFence");
  }

  @Override
  public void warpgroupCommit() {
    throw new UnsupportedOperationException("warpgroupCommit");
  }

  @Override
  public void warpgroupWait(int pending) {
    throw new UnsupportedOperationException("warpgroupWait");
  }

  @Override
  public void fenceSharedAsync() {
    throw new UnsupportedOperationException("fenceSharedAsync");
  }
}
