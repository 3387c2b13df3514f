package sirocco.jit;

/**
 * What the generated PTX is for: the GPU architecture ({@code .target sm_90}) and the PTX ISA
 * version ({@code .version 8.0}).
 *
 * <p>Choosing the ISA: the PTX must be accepted both by the driver that loads it and by the PTX
 * compiler that validates it in CI. JCuda 12.6.0's statically linked nvPTXCompiler reports version
 * 12.0 and accepts ISA 8.0 at most ({@code .version 8.5} fails with "Unsupported .version 8.5;
 * current version is '8.0'"), while the H200's driver 580 (CUDA 13) accepts newer ones. Nothing the
 * compiler emits needs more than ISA 7.0 ({@code cp.async}, for {@code Vec.copyAsync}, needs 7.0
 * and sm_80, which every target is), so {@link #sm90()} and {@link #sm80()} use 8.0, and {@link
 * #forDevice} picks the lowest ISA that supports the architecture but at least 8.0, capped by what
 * the installed driver understands.
 *
 * @param smMajor compute capability major (9 for sm_90)
 * @param smMinor compute capability minor
 * @param ptxMajor PTX ISA major version
 * @param ptxMinor PTX ISA minor version
 */
public record Target(int smMajor, int smMinor, int ptxMajor, int ptxMinor) {

  public Target {
    if (smMajor < 8) {
      throw new IllegalArgumentException(
          "smMajor must be 8 or more (sm_80+: mma bf16 and max.NaN need Ampere), got " + smMajor);
    }
    if (smMinor < 0 || smMinor > 9) {
      throw new IllegalArgumentException("smMinor must be 0..9, got " + smMinor);
    }
    if (ptxMajor < 7 || ptxMinor < 0 || ptxMinor > 9) {
      throw new IllegalArgumentException(
          "PTX ISA must be 7.0 or newer (x.y with y in 0..9), got " + ptxMajor + "." + ptxMinor);
    }
  }

  /** Hopper (H100/H200), PTX ISA 8.0. */
  public static Target sm90() {
    return new Target(9, 0, 8, 0);
  }

  /** Ampere (A100), PTX ISA 8.0. */
  public static Target sm80() {
    return new Target(8, 0, 8, 0);
  }

  /**
   * The target for a device of compute capability {@code ccMajor.ccMinor} under a driver reporting
   * {@code driverVersion} (as {@code cuDriverGetVersion} does: 1000·major + 10·minor, e.g. 13000
   * for CUDA 13.0): the lowest ISA that supports the architecture, at least 8.0, capped by the
   * driver.
   *
   * @throws IllegalArgumentException when the driver is too old for the architecture, or the
   *     architecture is older than sm_80
   */
  public static Target forDevice(int ccMajor, int ccMinor, int driverVersion) {
    if (ccMajor < 8) {
      throw new IllegalArgumentException(
          "compute capability "
              + ccMajor
              + "."
              + ccMinor
              + " is not supported: Sirocco needs sm_80+");
    }
    int archMin = minIsaFor(ccMajor * 10 + ccMinor);
    int driverMax = maxIsaForDriver(driverVersion);
    int isa = Math.min(Math.max(archMin, 80), driverMax);
    if (isa < archMin) {
      throw new IllegalArgumentException(
          "driver version "
              + driverVersion
              + " supports PTX ISA up to "
              + driverMax / 10
              + "."
              + driverMax % 10
              + ", but sm_"
              + ccMajor
              + ccMinor
              + " needs "
              + archMin / 10
              + "."
              + archMin % 10
              + ": update the driver");
    }
    return new Target(ccMajor, ccMinor, isa / 10, isa % 10);
  }

  /** Lowest PTX ISA (times ten) that knows {@code sm_<sm>}, per NVIDIA's PTX ISA release notes. */
  static int minIsaFor(int sm) {
    return switch (sm) {
      case 80 -> 70;
      case 86 -> 71;
      case 87 -> 74;
      case 89, 90 -> 78;
      case 100, 101 -> 86;
      case 120 -> 87;
      case 103, 121 -> 88;
      case 110 -> 90;
      default -> sm < 90 ? 78 : 90;
    };
  }

  /** Highest PTX ISA (times ten) a driver of this CUDA version understands. */
  static int maxIsaForDriver(int driverVersion) {
    int major = driverVersion / 1000;
    int minor = (driverVersion % 1000) / 10;
    if (major >= 13) {
      return 90 + Math.min(minor, 9);
    }
    if (major == 12) {
      // 12.0 -> 8.0 ... 12.5 -> 8.5, 12.6 -> 8.5, 12.7 -> 8.6, 12.8 -> 8.7, 12.9 -> 8.8
      return switch (minor) {
        case 0, 1, 2, 3, 4, 5 -> 80 + minor;
        case 6 -> 85;
        case 7 -> 86;
        case 8 -> 87;
        default -> 88;
      };
    }
    if (major == 11) {
      // 11.0 -> 7.0, 11.1 -> 7.1, ... 11.8 -> 7.8
      return 70 + Math.min(minor, 8);
    }
    return 60;
  }

  /** Largest static shared memory a kernel may declare, and the default per-block limit: 48 KiB. */
  public static final int STATIC_SHARED_LIMIT = 48 * 1024;

  /**
   * The most shared memory one block may use on this architecture once a kernel opts in ({@code
   * CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES}); above {@link #STATIC_SHARED_LIMIT} it must
   * be dynamic shared memory. Per the CUDA C++ Programming Guide (Compute Capabilities, "Shared
   * Memory" of 8.x, 9.0, 10.0 and 12.0): a block may address 163 KB on 8.0 and 8.7, 99 KB on 8.6,
   * 8.9 and 12.0, 227 KB on 9.0 and 10.0 (1 KB of each SM's carveout is reserved for the system).
   * Other architectures get the 48 KiB every device allows: a kernel compiled for one of them never
   * relies on an opt-in the guide does not promise. The device's own figure ({@code
   * CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN}) is checked again before a launch.
   */
  public int maxSharedBytesPerBlock() {
    return switch (smMajor * 10 + smMinor) {
      case 80, 87 -> 163 * 1024;
      case 86, 89, 120 -> 99 * 1024;
      case 90, 100 -> 227 * 1024;
      default -> STATIC_SHARED_LIMIT;
    };
  }

  /** "sm_90". */
  public String arch() {
    return "sm_" + smMajor + smMinor;
  }

  /**
   * Whether {@code griddepcontrol} exists here (sm_90+, PTX ISA 7.8): before sm_90 no launch starts
   * early, so {@code waitForPriorGrids} and {@code releaseDependentGrids} emit nothing.
   */
  public boolean hasGridDependencyControl() {
    return smMajor >= 9;
  }

  /** "8.0". */
  public String isa() {
    return ptxMajor + "." + ptxMinor;
  }
}
