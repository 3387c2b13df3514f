package sirocco.kernels;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.File;
import java.io.IOException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;
import sirocco.jit.CompiledKernel;
import sirocco.jit.KernelCompiler;
import sirocco.jit.LaunchBounds;
import sirocco.jit.PtxResources;
import sirocco.jit.PtxValidator;
import sirocco.jit.Target;
import sirocco.kernels.attention.Sdpa;
import sirocco.kernels.attention.SdpaShape;
import sirocco.kernels.attention.SdpaVector;
import sirocco.kernels.attention.SdpaVectorMma;
import sirocco.kernels.attention.SdpaVectorPlans;
import sirocco.kernels.quant.AffineQmvSplitKKernel;
import sirocco.kernels.quant.LaunchPlan;
import sirocco.kernels.quant.QmmShape;
import sirocco.kernels.quant.Quant;

/**
 * The sibling of {@link ShippedKernelsPtxTest} for occupancy hints: the {@code validateWith} sets
 * carry specialization values only, so the variants the plans compile with {@code .maxntid}/{@code
 * .minnctapersm} are enumerated here from the kernels' own hint functions ({@link
 * SdpaVector#minBlocksPerSm}, {@link AffineQmvSplitKKernel#minBlocksPerSm}), every one of them is
 * compiled with its hint by NVIDIA's in-process PTX compiler (12.0) and must not spill, must keep
 * to the registers the hint allows and must not be reported as ignored; and the plans for a sweep
 * of representative shapes are checked to ask only for variants in that set. Where a {@code ptxas}
 * is installed ({@code $SIROCCO_PTXAS}, else on {@code PATH}: 13.0 reproduces the H200's SASS), the
 * same variants go through it too; otherwise those cases are skipped.
 */
class HintedVariantsPtxTest {
  /** One hinted compilation: kernel, specialization values, hint and target. */
  record Variant(Method kernel, Map<String, Object> specs, LaunchBounds bounds, Target target) {
    String label() {
      return kernel.getDeclaringClass().getSimpleName()
          + "."
          + kernel.getName()
          + specs
          + " "
          + bounds
          + " "
          + target.arch();
    }

    /** Registers per thread that let {@code minBlocksPerSm} blocks share the 64 K of an SM. */
    int registerCap() {
      int warps = (bounds.threads() + 31) / 32;
      int warpsPerQuarter = (warps * bounds.minBlocksPerSm() + 3) / 4;
      return 16384 / warpsPerQuarter / 32 / 8 * 8;
    }
  }

  static Method kernel(Class<?> owner, String name) {
    for (Method m : owner.getDeclaredMethods()) {
      if (m.getName().equals(name) && m.isAnnotationPresent(sirocco.api.Kernel.class)) {
        return m;
      }
    }
    throw new IllegalStateException(owner + "." + name);
  }

  static final Method DECODE = kernel(SdpaVector.class, "decode");
  static final Method DECODE_MMA = kernel(SdpaVectorMma.class, "decode");
  static final Method SPLITK = kernel(AffineQmvSplitKKernel.class, "qmv");

  static Map<String, Object> decodeSpecs(
      int d, int dtype, int rows, int mask, boolean sinks, boolean partial) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("headDim", d);
    m.put("dtype", dtype);
    m.put("rows", rows);
    m.put("maskKind", mask);
    m.put("hasSinks", sinks);
    m.put("partial", partial);
    return m;
  }

  static Map<String, Object> splitKSpecs(int bits, int g, int dtype, int warps, int fb) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("bits", bits);
    m.put("groupSize", g);
    m.put("dtype", dtype);
    m.put("warps", warps);
    m.put("fb", fb);
    return m;
  }

  /** Every variant a plan may launch with a hint, from the kernels' hint functions. */
  static List<Variant> hintedVariants() {
    List<Variant> out = new ArrayList<>();
    for (int d : new int[] {64, 96, 128, 256, 512}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (int rows = 1; rows <= SdpaVector.MAX_ROWS; rows++) {
          for (int mask = Sdpa.MASK_NONE; mask <= Sdpa.MASK_BOOL; mask++) {
            for (boolean partial : new boolean[] {false, true}) {
              int n = SdpaVectorPlans.minBlocksPerSm(90, d, dtype, rows, mask, partial);
              if (n == 0) {
                continue;
              }
              for (boolean sinks : partial ? new boolean[] {false} : new boolean[] {false, true}) {
                out.add(
                    new Variant(
                        DECODE,
                        decodeSpecs(d, dtype, rows, mask, sinks, partial),
                        new LaunchBounds(SdpaVector.THREADS, 1, 1, n),
                        Target.sm90()));
              }
            }
          }
        }
      }
    }
    for (int d : new int[] {64, 128, 256, 512}) {
      for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
        for (int rows = 1; rows <= SdpaVectorMma.MAX_ROWS; rows++) {
          int n = SdpaVectorMma.minBlocksPerSm(90, d, rows);
          if (n == 0) {
            continue;
          }
          for (int mask : new int[] {Sdpa.MASK_NONE, Sdpa.MASK_CAUSAL}) {
            for (boolean partial : new boolean[] {false, true}) {
              for (boolean sinks : partial ? new boolean[] {false} : new boolean[] {false, true}) {
                out.add(
                    new Variant(
                        DECODE_MMA,
                        decodeSpecs(d, dtype, rows, mask, sinks, partial),
                        new LaunchBounds(SdpaVectorMma.THREADS, 1, 1, n),
                        Target.sm90()));
              }
            }
          }
        }
      }
    }
    for (int bits : new int[] {4, 8}) {
      for (int g : new int[] {32, 64, 128}) {
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          for (int warps = 1; warps <= 32; warps++) {
            int n = AffineQmvSplitKKernel.minBlocksPerSm(bits, g, dtype, warps);
            if (n == 0) {
              continue;
            }
            for (Target t : List.of(Target.sm80(), Target.sm90())) {
              out.add(
                  new Variant(
                      SPLITK,
                      splitKSpecs(bits, g, dtype, warps, AffineQmvSplitKKernel.FB),
                      new LaunchBounds(32 * warps, 1, 1, n),
                      t));
            }
          }
        }
      }
    }
    return out;
  }

  @Test
  void theHintedSetIsWhatWasMeasured() {
    List<Variant> all = hintedVariants();
    long decode = all.stream().filter(v -> v.kernel() == DECODE).count();
    long splitK = all.stream().filter(v -> v.kernel() == SPLITK).count();
    long decodeMma = all.stream().filter(v -> v.kernel() == DECODE_MMA).count();
    assertEquals(35, decode, "decode variants with a hint (sm_90)");
    // D = 128: rows 4 and 8; D = 512: rows 1-8; each for 2 dtypes x 2 masks x 3 ends.
    assertEquals(24 + 96, decodeMma, "tensor-core decode variants with a hint (sm_90)");
    assertEquals(72, splitK, "split-K variants with a hint (sm_80 and sm_90)");
    // The decode hint is for sm_90 only (sm_80 spills at 128 registers).
    for (int arch : new int[] {80, 86, 89, 100, 120}) {
      for (int d : new int[] {64, 96, 128, 256, 512}) {
        for (int mask = 0; mask <= 3; mask++) {
          assertEquals(0, SdpaVectorPlans.minBlocksPerSm(arch, d, Sdpa.F16, 4, mask, true));
          assertEquals(0, SdpaVectorPlans.minBlocksPerSm(arch, d, Sdpa.BF16, 4, mask, false));
        }
      }
    }
  }

  /** The (variant, hint) pairs the plans ask for over a sweep of shapes, all in the tested set. */
  @Test
  void plansAskOnlyForTestedVariants() {
    Set<String> tested = new LinkedHashSet<>();
    for (Variant v : hintedVariants()) {
      if (v.target().arch().equals("sm_90")) {
        tested.add(
            v.kernel().getName()
                + v.specs()
                + " "
                + v.bounds()
                + (v.kernel() == DECODE_MMA ? " mma" : ""));
      }
    }
    Set<String> asked = new LinkedHashSet<>();
    int[][] heads = {{32, 8}, {8, 2}, {28, 4}, {32, 32}, {16, 1}, {12, 4}};
    for (int[] h : heads) {
      for (int b : new int[] {1, 3}) {
        for (int lq = 1; lq <= SdpaVector.MAX_QUERY_LEN; lq++) {
          for (int s : new int[] {1, 100, 1024, 8192, 32768}) {
            for (int d : new int[] {64, 96, 128, 256, 512}) {
              SdpaShape shape = SdpaShape.of(b, h[0], h[1], lq, s, d);
              for (int dtype : new int[] {Sdpa.BF16, Sdpa.F16}) {
                for (int mask = 0; mask <= 3; mask++) {
                  for (int sms : new int[] {132, 108, 16}) {
                    SdpaVectorPlans.Plan p = SdpaVectorPlans.planFor(shape, sms, 90, dtype, mask);
                    if (p.minBlocksPerSm() == 0) {
                      continue;
                    }
                    assertEquals(p.minBlocksPerSm(), p.blocksPerSm(), "sized for the hint");
                    assertTrue(
                        p.splits() == 1 || p.grid().count() <= (long) sms * p.blocksPerSm(),
                        "split-K in one wave: " + p);
                    for (boolean sinks : new boolean[] {false, true}) {
                      asked.add(
                          "decode"
                              + decodeSpecs(
                                  d, dtype, p.rows(), mask, sinks && !p.partial(), p.partial())
                              + " "
                              + new LaunchBounds(128, 1, 1, p.minBlocksPerSm()));
                    }
                  }
                  if (SdpaVectorMma.supports(shape, mask) == null) {
                    for (int sms : new int[] {132, 108, 16}) {
                      SdpaVectorPlans.Plan p = SdpaVectorMma.plan(shape, sms, 0, 90);
                      if (p.minBlocksPerSm() == 0) {
                        continue;
                      }
                      assertTrue(
                          p.splits() == 1 || p.grid().count() <= (long) sms * p.blocksPerSm(),
                          "split-K in one wave: " + p);
                      for (boolean sinks : new boolean[] {false, true}) {
                        asked.add(
                            "decode"
                                + decodeSpecs(
                                    d, dtype, p.rows(), mask, sinks && !p.partial(), p.partial())
                                + " "
                                + new LaunchBounds(128, 1, 1, p.minBlocksPerSm())
                                + " mma");
                      }
                    }
                    assertEquals(0, SdpaVectorMma.plan(shape, 132, 0, 80).minBlocksPerSm());
                  }
                  // Other architectures and the plan without one get no hint.
                  assertEquals(
                      0, SdpaVectorPlans.planFor(shape, 132, 80, dtype, mask).minBlocksPerSm());
                  assertEquals(0, SdpaVectorPlans.plan(shape, 132).minBlocksPerSm());
                }
              }
            }
          }
        }
      }
    }
    for (int k = 128; k <= 16384; k += 128) {
      for (int g : new int[] {32, 64, 128}) {
        if (k % g != 0) {
          continue;
        }
        for (int dtype : new int[] {Quant.BF16, Quant.F16}) {
          for (int bits : new int[] {4, 8}) {
            QmmShape s = QmmShape.affine(bits, g, dtype, 1, 12288, k);
            if (AffineQmvSplitKKernel.supports(s) != null) {
              continue;
            }
            LaunchPlan p = AffineQmvSplitKKernel.plan(s, 132);
            if (p.minBlocksPerSm() == 0) {
              continue;
            }
            assertTrue(p.grid().x() <= 132 * p.minBlocksPerSm(), p.describe());
            asked.add(
                "qmv"
                    + new LinkedHashMap<String, Object>(p.specialize())
                    + " "
                    + new LaunchBounds(
                        p.block().x(), p.block().y(), p.block().z(), p.minBlocksPerSm()));
          }
        }
      }
    }
    assertFalse(asked.isEmpty());
    List<String> untested = new ArrayList<>(asked);
    untested.removeAll(tested);
    assertEquals(List.of(), untested, "hinted variants the plans use but the PTX tests miss");
    System.out.println(asked.size() + " hinted variants asked for by the plans swept");
  }

  @TestFactory
  Stream<DynamicTest> everyHintedVariantCompilesWithoutSpills() {
    assertTrue(PtxValidator.isAvailable(), "JCuda's nvPTXCompiler must load for these tests");
    List<DynamicTest> tests = new ArrayList<>();
    for (Variant v : hintedVariants()) {
      tests.add(
          dynamicTest(
              v.label(),
              () -> {
                CompiledKernel k =
                    KernelCompiler.compile(v.kernel(), v.specs(), v.target(), v.bounds());
                assertTrue(k.ptx().contains(v.bounds().directives()), v.label());
                PtxResources r = PtxValidator.validate(k);
                System.out.printf(
                    "%-110s %3d regs (cap %d) %4d B stack%n",
                    v.label(), r.registers(), v.registerCap(), r.stackFrameBytes());
                assertEquals(0, r.spillStoreBytes(), v.label() + " spills: " + r.log());
                assertEquals(0, r.spillLoadBytes(), v.label() + " spills: " + r.log());
                assertTrue(r.registers() <= v.registerCap(), v.label() + ": " + r.log());
                assertFalse(r.log().contains("ignored"), v.label() + ": " + r.log());
              }));
    }
    return tests.stream();
  }

  /** The installed ptxas, or null: {@code $SIROCCO_PTXAS}, else {@code ptxas} on the PATH. */
  static Path ptxas() {
    String env = System.getenv("SIROCCO_PTXAS");
    if (env != null && !env.isBlank()) {
      return Files.isExecutable(Path.of(env)) ? Path.of(env) : null;
    }
    String path = System.getenv("PATH");
    if (path == null) {
      return null;
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isBlank() && Files.isExecutable(Path.of(dir, "ptxas"))) {
        return Path.of(dir, "ptxas");
      }
    }
    return null;
  }

  @TestFactory
  Stream<DynamicTest> everyHintedVariantCompilesWithoutSpillsInTheInstalledPtxas() {
    Path ptxas = ptxas();
    List<DynamicTest> tests = new ArrayList<>();
    for (Variant v : hintedVariants()) {
      tests.add(
          dynamicTest(
              v.label(),
              () -> {
                assumeTrue(ptxas != null, "no ptxas installed (SIROCCO_PTXAS or PATH)");
                CompiledKernel k =
                    KernelCompiler.compile(v.kernel(), v.specs(), v.target(), v.bounds());
                String log = runPtxas(ptxas, k.ptx(), v.target().arch());
                Matcher regs = Pattern.compile("Used (\\d+) registers").matcher(log);
                Matcher spills =
                    Pattern.compile("(\\d+) bytes spill stores, (\\d+) bytes spill loads")
                        .matcher(log);
                assertTrue(regs.find() && spills.find(), log);
                System.out.printf("%-110s ptxas %s: %s regs%n", v.label(), ptxas, regs.group(1));
                assertEquals("0", spills.group(1), v.label() + ": " + log);
                assertEquals("0", spills.group(2), v.label() + ": " + log);
                assertTrue(Integer.parseInt(regs.group(1)) <= v.registerCap(), log);
                assertFalse(log.contains("ignored"), log);
              }));
    }
    return tests.stream();
  }

  private static String runPtxas(Path ptxas, String ptx, String arch)
      throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("sirocco-ptxas");
    try {
      Path in = dir.resolve("k.ptx");
      Files.writeString(in, ptx);
      Process p =
          new ProcessBuilder(
                  ptxas.toString(),
                  "-arch=" + arch,
                  "-v",
                  "-o",
                  dir.resolve("k.cubin").toString(),
                  in.toString())
              .redirectErrorStream(true)
              .start();
      String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      assertTrue(p.waitFor(120, TimeUnit.SECONDS), "ptxas timed out");
      assertEquals(0, p.exitValue(), log);
      return log;
    } finally {
      try (Stream<Path> files = Files.list(dir)) {
        for (Path f : files.toList()) {
          Files.deleteIfExists(f);
        }
      }
      Files.deleteIfExists(dir);
    }
  }
}
