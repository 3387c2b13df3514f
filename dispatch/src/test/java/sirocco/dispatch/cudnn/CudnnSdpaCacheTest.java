package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import sirocco.runtime.cache.LruCache;

/** The graph cache on the shared LRU, with a recording fake behind the builds. */
class CudnnSdpaCacheTest {
  static CudnnSdpaKey key(long lq) {
    return CudnnSdpaGraphTest.key(lq, lq, CudnnSdpaKey.MaskKind.NONE);
  }

  @Test
  void defaultCapacityIs256() {
    String old = System.getProperty(CudnnSdpaCache.CAPACITY_PROPERTY);
    try {
      System.clearProperty(CudnnSdpaCache.CAPACITY_PROPERTY);
      if (System.getenv(CudnnSdpaCache.CAPACITY_ENV) == null) {
        assertEquals(256, CudnnSdpaCache.configured().capacity());
      }
      System.setProperty(CudnnSdpaCache.CAPACITY_PROPERTY, "7");
      assertEquals(7, CudnnSdpaCache.configured().capacity());
    } finally {
      if (old == null) {
        System.clearProperty(CudnnSdpaCache.CAPACITY_PROPERTY);
      } else {
        System.setProperty(CudnnSdpaCache.CAPACITY_PROPERTY, old);
      }
    }
  }

  @Test
  void hitsReuseThePlanAndEvictionDestroysDescriptors() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaCache cache = new CudnnSdpaCache(2);
    AtomicInteger builds = new AtomicInteger();
    var build =
        (java.util.function.Function<CudnnSdpaKey, CudnnSdpaPlan>)
            k -> {
              builds.incrementAndGet();
              return CudnnSdpaPlan.build(api, 1, k);
            };
    CudnnSdpaPlan a = cache.acquire(key(128), build);
    a.release();
    CudnnSdpaPlan again = cache.acquire(key(128), build);
    again.release();
    assertSame(a, again);
    assertEquals(1, builds.get());
    assertEquals(1, cache.hits());
    cache.acquire(key(256), build).release();
    long liveWithTwo = api.live();
    cache.acquire(key(512), build).release(); // evicts key(128), the least recently used
    assertTrue(a.destroyed());
    assertEquals(liveWithTwo, api.live(), "one plan's descriptors destroyed, one plan's made");
    assertEquals(2, cache.size());
    cache.clear();
    assertEquals(0, api.live());
  }

  @Test
  void consecutiveMissesBeyondTwiceTheCapacityAreReportedAsThrashing() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaCache cache = new CudnnSdpaCache(1);
    cache.acquire(key(16), k -> CudnnSdpaPlan.build(api, 1, k)).release();
    cache.acquire(key(32), k -> CudnnSdpaPlan.build(api, 1, k)).release();
    var e =
        assertThrows(
            LruCache.CacheThrashException.class,
            () -> cache.acquire(key(48), k -> CudnnSdpaPlan.build(api, 1, k)));
    assertTrue(e.getMessage().startsWith("cuDNN SDPA graph cache is thrashing"), e.getMessage());
  }

  @Test
  void failuresAreCachedSoTheShapeIsNotRebuilt() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.configsPerMode = 0;
    CudnnSdpaCache cache = new CudnnSdpaCache(4);
    AtomicInteger builds = new AtomicInteger();
    for (int i = 0; i < 3; i++) {
      CudnnSdpaPlan p =
          cache.acquire(
              key(128),
              k -> {
                builds.incrementAndGet();
                return CudnnSdpaPlan.build(api, 1, k);
              });
      assertTrue(!p.ok());
      p.release();
    }
    assertEquals(1, builds.get());
  }
}
