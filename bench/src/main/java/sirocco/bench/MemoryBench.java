package sirocco.bench;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sirocco.runtime.Device;
import sirocco.runtime.DeviceBuffer;
import sirocco.runtime.ElementType;
import sirocco.runtime.Stream;

/**
 * {@code tornado bench memory}: what the memory pool and {@code clearCache()} cost. Allocation +
 * stream-ordered free through the pool per size (the figure that decides whether Sirocco's own
 * size-bucketed cache would pay: a Java-side cache hit costs well under a microsecond); {@code
 * clearCache()} with nothing cached and after freeing a block; and the first allocation after a
 * trim (what a caller pays when it clears the cache every N steps, as MLX does every 256 tokens).
 */
public final class MemoryBench {
  /**
   * @param iterations timed alloc+free pairs for small sizes (large sizes use fewer)
   * @param sizes allocation sizes in bytes
   * @param clearIterations timed clearCache calls per case
   * @param cachedBytes how much freed memory the "after free" cases leave cached
   */
  public record Options(int iterations, List<Long> sizes, int clearIterations, long cachedBytes) {
    public static Options defaults() {
      return new Options(2000, List.of(4096L, 1L << 20, 64L << 20), 50, 64L << 20);
    }

    public Options {
      if (iterations < 1 || clearIterations < 1 || sizes == null || sizes.isEmpty()) {
        throw new IllegalArgumentException("iterations and sizes must be given");
      }
      for (long s : sizes) {
        if (s < 4 || s % 4 != 0) {
          throw new IllegalArgumentException("sizes must be positive multiples of 4, got " + s);
        }
      }
      if (cachedBytes < 4 || cachedBytes % 4 != 0) {
        throw new IllegalArgumentException(
            "cachedBytes must be a positive multiple of 4, got " + cachedBytes);
      }
      sizes = List.copyOf(sizes);
    }
  }

  private MemoryBench() {}

  public static BenchRecord run(Device d, Options o, PrintWriter out) {
    Stream s = d.defaultStream();
    List<BenchCase> cases = new ArrayList<>();
    out.printf(Locale.ROOT, "bench memory on %s%n%n", d.info().name());
    String fmt = "%-34s %12s %10s %10s %10s %6s%n";
    out.printf(Locale.ROOT, fmt, "case", "bytes", "p50 us", "p10 us", "p90 us", "n");
    for (long bytes : o.sizes()) {
      long elements = bytes / 4;
      int n = bytes >= (16L << 20) ? Math.max(20, o.iterations() / 50) : o.iterations();
      Stats st =
          Timing.sample(
              Math.min(n, 50),
              n,
              () -> {
                DeviceBuffer b = d.allocate(ElementType.F32, elements, s);
                b.close();
              });
      add(cases, out, fmt, "memory/alloc-free", bytes, st);
    }
    d.synchronize();
    d.clearCache();
    Stats empty = Timing.sample(2, o.clearIterations(), d::clearCache);
    add(cases, out, fmt, "memory/clear-cache-nothing-cached", 0, empty);
    long cached = o.cachedBytes();
    long[] afterFree = new long[o.clearIterations()];
    long[] firstAlloc = new long[o.clearIterations()];
    for (int i = 0; i < o.clearIterations(); i++) {
      DeviceBuffer b = d.allocate(ElementType.F32, cached / 4, s);
      d.zero(b, s);
      b.close();
      long t0 = System.nanoTime();
      d.clearCache();
      afterFree[i] = System.nanoTime() - t0;
      t0 = System.nanoTime();
      DeviceBuffer again = d.allocate(ElementType.F32, cached / 4, s);
      firstAlloc[i] = System.nanoTime() - t0;
      again.close();
    }
    add(cases, out, fmt, "memory/clear-cache-after-free", cached, Stats.ofNanosAsMicros(afterFree));
    add(
        cases,
        out,
        fmt,
        "memory/alloc-after-clear-cache",
        cached,
        Stats.ofNanosAsMicros(firstAlloc));
    d.synchronize();
    d.clearCache();
    out.flush();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("iterations", o.iterations());
    params.put("sizes", o.sizes());
    params.put("clear_iterations", o.clearIterations());
    params.put("cached_bytes", o.cachedBytes());
    return BenchRecord.of("tornado bench memory", d.info(), params, cases);
  }

  private static void add(
      List<BenchCase> cases, PrintWriter out, String fmt, String name, long bytes, Stats st) {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("bytes", bytes);
    cases.add(BenchCase.of(name, p, "us", st));
    out.printf(
        Locale.ROOT,
        fmt,
        name,
        bytes,
        String.format(Locale.ROOT, "%.2f", st.median()),
        String.format(Locale.ROOT, "%.2f", st.p10()),
        String.format(Locale.ROOT, "%.2f", st.p90()),
        st.samples());
  }
}
