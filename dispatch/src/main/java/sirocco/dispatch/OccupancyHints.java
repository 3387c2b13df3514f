package sirocco.dispatch;

/**
 * Whether the ops launch with the occupancy hints their kernels' plans ask for ({@code
 * KernelLaunch.minBlocksPerSm}: {@code SdpaVectorPlans.minBlocksPerSm}, {@code
 * AffineQmvSplitKKernel.minBlocksPerSm}). On by default; {@code -Dsirocco.occupancyHints=false}
 * (read at every call) plans and launches as before hints existed — the grid sized for the unhinted
 * register count and no {@code .maxntid}/{@code .minnctapersm} — so one build can time both.
 */
public final class OccupancyHints {
  private OccupancyHints() {}

  /** The system property that turns the hints off. */
  public static final String PROPERTY = "sirocco.occupancyHints";

  /** True unless {@code -Dsirocco.occupancyHints=false}. */
  public static boolean enabled() {
    return !"false".equalsIgnoreCase(System.getProperty(PROPERTY, "true").trim());
  }
}
