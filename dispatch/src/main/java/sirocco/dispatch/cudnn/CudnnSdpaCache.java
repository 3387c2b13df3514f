package sirocco.dispatch.cudnn;

import java.util.function.Function;
import sirocco.runtime.cache.LruCache;

/**
 * The cuDNN SDPA graph/plan cache: Sirocco's shared {@link LruCache} keyed by {@link CudnnSdpaKey}
 * (see there for what is and is not in the key). Capacity 256 by default, or the system property
 * {@code sirocco.cudnn.graphCacheSize} / environment variable {@code
 * SIROCCO_CUDNN_GRAPH_CACHE_SIZE}; more than twice the capacity of misses in a row is reported as
 * thrashing by the LRU ({@link LruCache.CacheThrashException}). Evicted entries destroy their
 * descriptors once no call uses them. Entries that hold "no plan, because …" are cached too.
 */
final class CudnnSdpaCache {
  static final String CAPACITY_PROPERTY = "sirocco.cudnn.graphCacheSize";
  static final String CAPACITY_ENV = "SIROCCO_CUDNN_GRAPH_CACHE_SIZE";
  static final int DEFAULT_CAPACITY = 256;

  private final LruCache<CudnnSdpaKey, CudnnSdpaPlan> lru;

  CudnnSdpaCache(int capacity) {
    this.lru = new LruCache<>("cuDNN SDPA graph cache", capacity, CudnnSdpaPlan::evict);
  }

  /** A cache with the configured capacity. */
  static CudnnSdpaCache configured() {
    return new CudnnSdpaCache(
        LruCache.configuredCapacity(CAPACITY_PROPERTY, CAPACITY_ENV, DEFAULT_CAPACITY));
  }

  /**
   * The entry for {@code key}, built on a miss, and acquired: the caller must {@link
   * CudnnSdpaPlan#release()} it.
   */
  CudnnSdpaPlan acquire(CudnnSdpaKey key, Function<CudnnSdpaKey, CudnnSdpaPlan> build) {
    while (true) {
      CudnnSdpaPlan p = lru.getOrCreate(key, build);
      if (p.acquire()) {
        return p;
      }
      // Evicted and destroyed between lookup and acquire: look up again (a new entry is built).
    }
  }

  CudnnSdpaPlan peek(CudnnSdpaKey key) {
    return lru.getIfPresent(key);
  }

  int size() {
    return lru.size();
  }

  int capacity() {
    return lru.capacity();
  }

  long hits() {
    return lru.hits();
  }

  long misses() {
    return lru.misses();
  }

  void clear() {
    lru.clear();
  }

  String describe() {
    return "graph cache "
        + size()
        + "/"
        + capacity()
        + " ("
        + hits()
        + " hits, "
        + misses()
        + " misses)";
  }
}
