package sirocco.jit.ir;

/**
 * A vector load or store: {@code words} 32-bit words ({@code 2} or {@code 4}), through the
 * read-only path or not, as floats ({@code .f32}) or raw words ({@code .u32}). {@code matrix}: a
 * warp-collective {@code ldmatrix ... .x4} load from shared memory ({@code
 * KernelContext.loadMatrixX4}), where the index is this lane's row of one of four 8x8 matrices and
 * the four words returned come from other lanes' rows.
 */
public record VecAccess(int words, boolean nc, boolean floats, boolean matrix) {
  public VecAccess(int words, boolean nc, boolean floats) {
    this(words, nc, floats, false);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof VecAccess v
        && v.words == words
        && v.nc == nc
        && v.floats == floats
        && v.matrix == matrix;
  }

  @Override
  public int hashCode() {
    return words * 8 + (matrix ? 4 : 0) + (nc ? 2 : 0) + (floats ? 1 : 0);
  }
}
