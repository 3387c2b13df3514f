package sirocco.jit.ir;

/** How a scalar load or store reaches memory. */
public enum MemFlavor {
  /** Ordinary access. */
  PLAIN,
  /** Read-only data path ({@code ld.global.nc}); falls back to a plain load on shared arrays. */
  NC,
  /** {@code ld.volatile}. */
  VOLATILE
}
