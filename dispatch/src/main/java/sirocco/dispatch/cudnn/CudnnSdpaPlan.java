package sirocco.dispatch.cudnn;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static sirocco.dispatch.cudnn.CudnnConstants.*;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import sirocco.dispatch.cudnn.CudnnApi.Descriptor;

/**
 * A cache entry: a finalized execution plan for one {@link CudnnSdpaKey} with its workspace size
 * and engine, or the reason no plan could be made (cached too, so a shape cuDNN declines is not
 * rebuilt at every call).
 *
 * <p>Eviction and use may overlap on different threads, so an entry counts its users: {@link
 * #acquire()} before executing, {@link #release()} after; the descriptors are destroyed once the
 * entry is evicted and no one uses it.
 */
final class CudnnSdpaPlan {
  final CudnnSdpaKey key;
  final Descriptor plan;
  final long workspaceBytes;
  final String engine;
  final List<String> rejected;
  final String failure;
  final long buildNanos;
  private final List<Descriptor> owned;
  private final long[] byValueUids;
  private final CudnnApi api;
  // >= 0: users; -1: destroyed.
  private final AtomicInteger users = new AtomicInteger();
  private volatile boolean evicted;

  private CudnnSdpaPlan(CudnnApi api, CudnnSdpaKey key, CudnnSdpaGraph.Planned p, long buildNanos) {
    this.api = api;
    this.key = key;
    this.plan = p.plan();
    this.workspaceBytes = p.workspaceBytes();
    this.engine = p.engine();
    this.rejected = p.rejected();
    this.failure = p.failure();
    this.owned = p.owned();
    this.byValueUids = p.byValueUids();
    this.buildNanos = buildNanos;
  }

  /**
   * Builds the graph and plan for {@code key} (a miss in the cache). Never throws CudnnException.
   */
  static CudnnSdpaPlan build(CudnnApi api, long handle, CudnnSdpaKey key) {
    long t0 = System.nanoTime();
    CudnnSdpaGraph.Planned p = CudnnSdpaGraph.plan(api, handle, key);
    return new CudnnSdpaPlan(api, key, p, System.nanoTime() - t0);
  }

  /** Device time of one candidate plan on the call being tuned, in µs per execution. */
  @FunctionalInterface
  interface Timer {
    double micros(CudnnSdpaPlan candidate);
  }

  /**
   * Builds the graph, finalizes up to {@code max} plans the heuristics offer and keeps the one
   * {@code timer} finds fastest (the first on a tie or when none could be timed); the engine tag
   * says it was tuned and lists every candidate's time. Never throws CudnnException: a candidate
   * whose timing fails is recorded as failed and not chosen.
   */
  static CudnnSdpaPlan tuned(CudnnApi api, long handle, CudnnSdpaKey key, int max, Timer timer) {
    long t0 = System.nanoTime();
    CudnnSdpaGraph.Candidates cs = CudnnSdpaGraph.candidates(api, handle, key, max);
    if (!cs.ok()) {
      return new CudnnSdpaPlan(api, key, CudnnSdpaGraph.failed(cs), System.nanoTime() - t0);
    }
    int n = cs.list().size();
    int best = 0;
    double bestMicros = Double.POSITIVE_INFINITY;
    StringBuilder note = new StringBuilder();
    for (int i = 0; i < n; i++) {
      CudnnSdpaGraph.Candidate c = cs.list().get(i);
      // Borrowed descriptors (owned stays empty): evicting the probe destroys only its packs.
      CudnnSdpaPlan probe =
          of(
              api,
              key,
              new CudnnSdpaGraph.Planned(
                  c.plan(),
                  c.workspaceBytes(),
                  c.engine(),
                  cs.rejected(),
                  List.of(),
                  cs.built().byValueUids(),
                  null));
      String result;
      try {
        double us = timer.micros(probe);
        result = String.format(java.util.Locale.ROOT, "%.2f us", us);
        if (us < bestMicros) {
          bestMicros = us;
          best = i;
        }
      } catch (CudnnException e) {
        result = "failed: " + e.shortReason();
      } finally {
        probe.evict();
      }
      note.append(i == 0 ? "" : "; ").append(c.engine()).append(' ').append(result);
    }
    String tag =
        n == 1 ? " (tuned: the only candidate)" : " (tuned, best of " + n + ": " + note + ")";
    return new CudnnSdpaPlan(
        api, key, CudnnSdpaGraph.choose(api, cs, best, tag), System.nanoTime() - t0);
  }

  /** An entry for a plan already made. */
  static CudnnSdpaPlan of(CudnnApi api, CudnnSdpaKey key, CudnnSdpaGraph.Planned planned) {
    return new CudnnSdpaPlan(api, key, planned, 0);
  }

  boolean ok() {
    return plan != null;
  }

  /** Takes a use; false when the entry was already destroyed (look it up again). */
  boolean acquire() {
    while (true) {
      int n = users.get();
      if (n < 0) {
        return false;
      }
      if (users.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  void release() {
    if (users.decrementAndGet() == 0 && evicted) {
      tryDestroy();
    }
  }

  /** Called by the cache when it drops this entry. */
  void evict() {
    evicted = true;
    tryDestroy();
  }

  private void tryDestroy() {
    if (users.compareAndSet(0, -1)) {
      // Teardown: this runs from the cache while it inserts another key, or from release() after
      // a call already queued its work; neither caller can act on a failure, and the entry is out
      // of the cache either way. Failures are counted (Cudnn.teardownFailures()).
      synchronized (packs) {
        for (int i = 0; i < packCount; i++) {
          api.destroyQuietly(packs[i].pack);
          packs[i] = null;
        }
        packCount = 0;
      }
      for (int i = owned.size() - 1; i >= 0; i--) {
        api.destroyQuietly(owned.get(i));
      }
    }
  }

  boolean destroyed() {
    return users.get() < 0;
  }

  /** The plan's JSON as cuDNN describes it (engine name, knobs), or a note why not. */
  String json() {
    if (plan == null) {
      return "(no plan)";
    }
    try {
      return api.getString(plan, ATTR_EXECUTION_PLAN_JSON_REPRESENTATION);
    } catch (CudnnException e) {
      return "(JSON unavailable: " + e.shortReason() + ")";
    }
  }

  /**
   * Queues the plan on the handle's current stream. Pointers are device addresses (0 for {@code
   * bias} when the graph has none); {@code workspace} may be 0 when {@link #workspaceBytes} is 0.
   * The by-value scalars (scale, −inf, Lq, Lkv) live in host memory only for the duration of the
   * call: cuDNN copies them into the launch.
   */
  void execute(
      long handle, long q, long k, long v, long o, long bias, float scale, long workspace) {
    int scaleBits = Float.floatToRawIntBits(scale);
    synchronized (packs) {
      CachedPack c = findPack(q, k, v, o, bias, workspace, scaleBits);
      if (c == null) {
        if (packCount == PACKS) {
          // Making room is normal flow, not teardown, so the destroy is checked: a failure throws
          // here, before a pack is made or anything is queued, and CudnnSdpa.run turns it into a
          // refusal with cuDNN's reason (the op then falls back and says why). The pack leaves
          // the array first: after a failed destroy its state is unknown, so it is never reused.
          Descriptor oldest = packs[PACKS - 1].pack;
          packs[PACKS - 1] = null;
          packCount--;
          api.destroy(oldest);
        }
        // Building a pack (create, three attributes, finalize, destroy) costs more host time than
        // cudnnBackendExecute itself; a decode loop calls with the same few buffers, whose packs
        // are
        // kept here. A pack holds only addresses, so a freed-and-reused address stays correct.
        Arena arena = Arena.ofAuto();
        c =
            new CachedPack(
                variantPack(arena, q, k, v, o, bias, scale, workspace),
                arena,
                new long[] {q, k, v, o, bias, workspace},
                scaleBits);
        addPack(c);
      }
      api.execute(handle, plan, c.pack);
    }
  }

  /** Variant packs kept per plan, most recently used first. */
  static final int PACKS = 8;

  private final CachedPack[] packs = new CachedPack[PACKS];
  private int packCount;
  private long packHits;
  private long packMisses;

  /**
   * A finalized variant pack and the host memory of its by-value scalars ({@code arena} must stay
   * reachable while the pack can execute).
   */
  private record CachedPack(Descriptor pack, Arena arena, long[] pointers, int scaleBits) {
    boolean matches(long q, long k, long v, long o, long bias, long ws, int scale) {
      return pointers[0] == q
          && pointers[1] == k
          && pointers[2] == v
          && pointers[3] == o
          && pointers[4] == bias
          && pointers[5] == ws
          && scaleBits == scale;
    }
  }

  private CachedPack findPack(long q, long k, long v, long o, long bias, long ws, int scaleBits) {
    for (int i = 0; i < packCount; i++) {
      CachedPack c = packs[i];
      if (c.matches(q, k, v, o, bias, ws, scaleBits)) {
        System.arraycopy(packs, 0, packs, 1, i);
        packs[0] = c;
        packHits++;
        return c;
      }
    }
    packMisses++;
    return null;
  }

  /** Puts {@code c} first; the caller has made room. */
  private void addPack(CachedPack c) {
    System.arraycopy(packs, 0, packs, 1, packCount);
    packs[0] = c;
    packCount++;
  }

  /** Variant-pack reuse so far: {hits, misses, kept}. */
  long[] packStats() {
    synchronized (packs) {
      return new long[] {packHits, packMisses, packCount};
    }
  }

  /**
   * A finalized variant pack for one call; its by-value scalars live in {@code arena}, which must
   * outlive every execution with it. The caller destroys the pack.
   */
  Descriptor variantPack(
      Arena arena, long q, long k, long v, long o, long bias, float scale, long workspace) {
    if (plan == null) {
      throw new IllegalStateException("no plan for " + key + ": " + failure);
    }
    boolean hasBias = key.mask == CudnnSdpaKey.MaskKind.BIAS;
    int n = 4 + (hasBias ? 1 : 0) + byValueUids.length;
    long[] uids = new long[n];
    long[] ptrs = new long[n];
    MemorySegment values = arena.allocate(16, 16);
    values.set(JAVA_FLOAT, 0, scale);
    values.set(JAVA_FLOAT, 4, Float.NEGATIVE_INFINITY);
    values.set(JAVA_INT, 8, (int) key.lkv);
    values.set(JAVA_INT, 12, (int) key.lq);
    int i = 0;
    uids[i] = CudnnSdpaGraph.UID_Q;
    ptrs[i++] = q;
    uids[i] = CudnnSdpaGraph.UID_K;
    ptrs[i++] = k;
    uids[i] = CudnnSdpaGraph.UID_V;
    ptrs[i++] = v;
    uids[i] = CudnnSdpaGraph.UID_O;
    ptrs[i++] = o;
    if (hasBias) {
      uids[i] = CudnnSdpaGraph.UID_BIAS;
      ptrs[i++] = bias;
    }
    for (long uid : byValueUids) {
      uids[i] = uid;
      long offset =
          uid == CudnnSdpaGraph.UID_SCALE
              ? 0
              : uid == CudnnSdpaGraph.UID_NEG_INF ? 4 : uid == CudnnSdpaGraph.UID_SEQ_KV ? 8 : 12;
      ptrs[i++] = values.address() + offset;
    }
    Descriptor pack = api.create(VARIANT_PACK_DESCRIPTOR);
    try {
      api.setInt64(pack, ATTR_VARIANT_PACK_UNIQUE_IDS, uids);
      api.set(pack, ATTR_VARIANT_PACK_DATA_POINTERS, TYPE_VOID_PTR, ptrs);
      api.set(pack, ATTR_VARIANT_PACK_WORKSPACE, TYPE_VOID_PTR, workspace);
      api.finalizeDescriptor(pack);
    } catch (RuntimeException | Error e) {
      // Unwinding: the exception being rethrown is the one the caller needs.
      api.destroyQuietly(pack);
      throw e;
    }
    return pack;
  }

  @Override
  public String toString() {
    return ok()
        ? key + " -> " + engine + ", workspace " + workspaceBytes + " B"
        : key + " -> no plan: " + failure;
  }
}
