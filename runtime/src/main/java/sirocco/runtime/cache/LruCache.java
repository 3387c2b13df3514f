package sirocco.runtime.cache;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A bounded least-recently-used cache shared by the kernel cache and the cuDNN graph cache.
 *
 * <p>Thrash check: when more than {@code 2 × capacity} lookups in a row miss, the cache is evicting
 * entries it needs again, and {@link #getOrCreate} throws {@link CacheThrashException} saying how
 * to raise the capacity. Any hit resets the count. (MLX counted misses over the cache's lifetime,
 * so long-running servers eventually aborted however healthy the cache was; ml-explore/mlx#4661
 * made the count consecutive.)
 *
 * <p>The capacity comes from the system property {@code <property>}, else the environment variable
 * {@code <env>}, else the default. Thread-safe.
 */
public final class LruCache<K, V> {
  private final String name;
  private final int capacity;
  private final Consumer<V> onEvict;
  private final LinkedHashMap<K, V> map;
  private long consecutiveMisses;
  private long hits;
  private long misses;

  public LruCache(String name, int capacity, Consumer<V> onEvict) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity of " + name + " must be >= 1, got " + capacity);
    }
    this.name = name;
    this.capacity = capacity;
    this.onEvict = onEvict == null ? v -> {} : onEvict;
    this.map = new LinkedHashMap<>(16, 0.75f, true);
  }

  /** Capacity from a system property, else an environment variable, else {@code fallback}. */
  public static int configuredCapacity(String property, String env, int fallback) {
    String value = System.getProperty(property);
    String source = "system property " + property;
    if (value == null) {
      value = System.getenv(env);
      source = "environment variable " + env;
    }
    if (value == null) {
      return fallback;
    }
    try {
      int c = Integer.parseInt(value.trim());
      if (c < 1) {
        throw new NumberFormatException();
      }
      return c;
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          source + " must be a positive integer, got '" + value + "'");
    }
  }

  /** Returns the cached value, or creates, caches and returns it. */
  public V getOrCreate(K key, Function<? super K, ? extends V> factory) {
    synchronized (this) {
      V v = map.get(key);
      if (v != null) {
        hits++;
        consecutiveMisses = 0;
        return v;
      }
      misses++;
      consecutiveMisses++;
      if (consecutiveMisses > 2L * capacity) {
        long n = consecutiveMisses;
        consecutiveMisses = 0;
        throw new CacheThrashException(
            name
                + " is thrashing: "
                + n
                + " lookups in a row missed with capacity "
                + capacity
                + "; the working set is larger than the cache, raise its capacity");
      }
    }
    // Create outside the lock: compiling a kernel or building a graph can take a while.
    V created = factory.apply(key);
    V evicted = null;
    V result;
    synchronized (this) {
      V raced = map.get(key);
      if (raced != null) {
        result = raced;
      } else {
        map.put(key, created);
        result = created;
        if (map.size() > capacity) {
          var eldest = map.entrySet().iterator();
          Map.Entry<K, V> e = eldest.next();
          evicted = e.getValue();
          eldest.remove();
        }
      }
    }
    if (result != created) {
      onEvict.accept(created);
    }
    if (evicted != null) {
      onEvict.accept(evicted);
    }
    return result;
  }

  public synchronized V getIfPresent(K key) {
    return map.get(key);
  }

  public synchronized int size() {
    return map.size();
  }

  public int capacity() {
    return capacity;
  }

  public synchronized long hits() {
    return hits;
  }

  public synchronized long misses() {
    return misses;
  }

  /** Removes every entry, passing each to the eviction action. */
  public void clear() {
    java.util.List<V> all;
    synchronized (this) {
      all = java.util.List.copyOf(map.values());
      map.clear();
      consecutiveMisses = 0;
    }
    all.forEach(onEvict);
  }

  /** The working set does not fit: see the class comment. */
  public static final class CacheThrashException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public CacheThrashException(String message) {
      super(message);
    }
  }
}
