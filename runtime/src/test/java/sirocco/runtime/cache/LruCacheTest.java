package sirocco.runtime.cache;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LruCacheTest {
  @Test
  void emplaceThenFindNeverThrows() {
    // MLX's case: 100 × (emplace i, find i) with a small cache: every find hits, so no thrash.
    LruCache<Integer, String> cache = new LruCache<>("test", 2, null);
    assertDoesNotThrow(
        () -> {
          for (int i = 0; i < 100; i++) {
            int k = i;
            cache.getOrCreate(k, x -> "v" + x);
            assertEquals("v" + k, cache.getOrCreate(k, x -> "other"));
          }
        });
    assertEquals(2, cache.size());
  }

  @Test
  void cyclingThreeKeysThroughCapacityTwoThrows() {
    LruCache<Integer, String> cache = new LruCache<>("kernel cache", 2, null);
    LruCache.CacheThrashException e =
        assertThrows(
            LruCache.CacheThrashException.class,
            () -> {
              for (int i = 0; i < 100; i++) {
                cache.getOrCreate(i % 3, x -> "v" + x);
              }
            });
    assertTrue(e.getMessage().contains("kernel cache is thrashing"), e.getMessage());
  }

  @Test
  void thrashNeedsMoreThanTwiceCapacityConsecutiveMisses() {
    LruCache<Integer, String> cache = new LruCache<>("c", 3, null);
    for (int i = 0; i < 6; i++) {
      cache.getOrCreate(100 + i, x -> "v"); // 6 = 2 × capacity misses in a row: still fine
    }
    cache.getOrCreate(105, x -> "v"); // a hit resets the count
    for (int i = 0; i < 6; i++) {
      cache.getOrCreate(200 + i, x -> "v");
    }
    assertThrows(LruCache.CacheThrashException.class, () -> cache.getOrCreate(300, x -> "v"));
  }

  @Test
  void evictsLeastRecentlyUsedAndReportsEvictions() {
    List<String> evicted = new ArrayList<>();
    LruCache<String, String> cache = new LruCache<>("c", 2, evicted::add);
    cache.getOrCreate("a", k -> "A");
    cache.getOrCreate("b", k -> "B");
    cache.getOrCreate("a", k -> "A2"); // touch a: b is now eldest
    cache.getOrCreate("c", k -> "C");
    assertEquals(List.of("B"), evicted);
    assertEquals("A", cache.getIfPresent("a"));
    cache.clear();
    assertEquals(3, evicted.size());
    assertTrue(evicted.containsAll(List.of("A", "B", "C")), evicted.toString());
    assertEquals(0, cache.size());
  }

  @Test
  void capacityComesFromPropertyAndRejectsNonsense() {
    System.setProperty("sirocco.test.capacity", "17");
    try {
      assertEquals(
          17, LruCache.configuredCapacity("sirocco.test.capacity", "SIROCCO_TEST_CAP_UNSET", 5));
      System.setProperty("sirocco.test.capacity", "zero");
      IllegalArgumentException e =
          assertThrows(
              IllegalArgumentException.class,
              () ->
                  LruCache.configuredCapacity(
                      "sirocco.test.capacity", "SIROCCO_TEST_CAP_UNSET", 5));
      assertTrue(e.getMessage().contains("sirocco.test.capacity"));
    } finally {
      System.clearProperty("sirocco.test.capacity");
    }
    assertEquals(
        5, LruCache.configuredCapacity("sirocco.test.capacity", "SIROCCO_TEST_CAP_UNSET", 5));
  }
}
