package sirocco.jit.testutil;

/**
 * The launch of a test kernel: block and grid extents in three dimensions, each at least 1. Threads
 * of a block and blocks of a grid are numbered linearly with x fastest, then y, then z, as CUDA
 * numbers them (the warp of a thread follows that linear number).
 */
public record Geometry(int blockX, int blockY, int blockZ, int gridX, int gridY, int gridZ) {
  public Geometry {
    if (blockX < 1 || blockY < 1 || blockZ < 1 || gridX < 1 || gridY < 1 || gridZ < 1) {
      throw new IllegalArgumentException(
          "extents must be positive, got block ("
              + blockX
              + ", "
              + blockY
              + ", "
              + blockZ
              + ") grid ("
              + gridX
              + ", "
              + gridY
              + ", "
              + gridZ
              + ")");
    }
  }

  /**
   * A 1-D launch of {@code threads} threads (rounded up to whole blocks) in blocks of {@code
   * block}.
   */
  public static Geometry oneD(int block, int threads) {
    return new Geometry(block, 1, 1, (threads + block - 1) / block, 1, 1);
  }

  /** Threads per block. */
  public int blockThreads() {
    return blockX * blockY * blockZ;
  }

  /** Blocks in the grid. */
  public int blocks() {
    return gridX * gridY * gridZ;
  }

  /** Block extents x, y, z. */
  public int[] dims() {
    return new int[] {blockX, blockY, blockZ};
  }

  /** Grid extents x, y, z (in blocks). */
  public int[] grid() {
    return new int[] {gridX, gridY, gridZ};
  }

  /** x, y, z of linear thread {@code tid} within a block. */
  public int[] thread(int tid) {
    return new int[] {tid % blockX, tid / blockX % blockY, tid / (blockX * blockY)};
  }

  /** x, y, z of linear block {@code block} within the grid. */
  public int[] block(int block) {
    return new int[] {block % gridX, block / gridX % gridY, block / (gridX * gridY)};
  }
}
