package sirocco.jit;

/**
 * An occupancy hint for NVIDIA's PTX compiler, emitted as the PTX performance-tuning directives
 * {@code .maxntid x, y, z} and {@code .minnctapersm n} after the {@code .entry} parameter list: the
 * kernel is launched with blocks of at most {@code x × y × z} threads, and at least {@code
 * minBlocksPerSm} such blocks should fit one SM at a time. ptxas then caps the registers per thread
 * at what lets that many blocks fit (on sm_80/sm_90: 64 K registers per SM, allocated per warp in
 * units of 256, so {@code 128} threads × 4 blocks → 128 registers, × 6 blocks → 80), and spills if
 * the kernel needs more, so a hint is worth asking for only where ptxas shows no spills. A launch
 * with more threads per block than {@code .maxntid} fails, which is why the runtime keys a hinted
 * variant by the block it is launched with.
 *
 * <p>Without a hint ({@code null} in {@link KernelKey} and {@link KernelCompiler#compile}) the PTX
 * carries neither directive and is exactly what it was before hints existed.
 *
 * @param blockX threads per block along x, 1..1024
 * @param blockY along y, 1..1024
 * @param blockZ along z, 1..64
 * @param minBlocksPerSm blocks that should be resident per SM, 1..32
 */
public record LaunchBounds(int blockX, int blockY, int blockZ, int minBlocksPerSm) {
  /** The most resident blocks per SM any supported architecture has (sm_80 and sm_90: 32). */
  public static final int MAX_BLOCKS_PER_SM = 32;

  public LaunchBounds {
    if (blockX < 1 || blockY < 1 || blockZ < 1 || blockX > 1024 || blockY > 1024 || blockZ > 64) {
      throw new IllegalArgumentException(
          "launch bounds: block must be 1..1024 × 1..1024 × 1..64 threads, got "
              + blockX
              + "x"
              + blockY
              + "x"
              + blockZ);
    }
    if ((long) blockX * blockY * blockZ > 1024) {
      throw new IllegalArgumentException(
          "launch bounds: block must have at most 1024 threads, got "
              + (long) blockX * blockY * blockZ);
    }
    if (minBlocksPerSm < 1 || minBlocksPerSm > MAX_BLOCKS_PER_SM) {
      throw new IllegalArgumentException(
          "launch bounds: minBlocksPerSm must be 1.."
              + MAX_BLOCKS_PER_SM
              + ", got "
              + minBlocksPerSm);
    }
  }

  /** Threads per block. */
  public int threads() {
    return blockX * blockY * blockZ;
  }

  /** The directives as they appear in the PTX, one per line (each ending with a newline). */
  public String directives() {
    return ".maxntid "
        + blockX
        + ", "
        + blockY
        + ", "
        + blockZ
        + "\n.minnctapersm "
        + minBlocksPerSm
        + "\n";
  }

  /** "maxntid 128, 1, 1, minnctapersm 4". */
  @Override
  public String toString() {
    return "maxntid " + blockX + ", " + blockY + ", " + blockZ + ", minnctapersm " + minBlocksPerSm;
  }
}
