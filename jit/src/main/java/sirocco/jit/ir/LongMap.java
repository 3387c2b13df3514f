package sirocco.jit.ir;

import java.util.Arrays;

/**
 * A small open-addressing hash map from {@code long} keys to objects (no boxing, keys mixed so that
 * keys differing only in high bits spread). Lookup only: it has no iteration, so nothing can depend
 * on its order. Not thread-safe.
 */
public final class LongMap<V> {
  private static final long EMPTY = Long.MIN_VALUE;

  private static final long[] NO_KEYS = {};

  private long[] keys = NO_KEYS;
  private Object[] values;
  private int size;
  private final int initialCapacity;
  private boolean hasEmptyKey;
  private Object emptyKeyValue;

  /** An empty map (no table until the first entry). */
  public LongMap() {
    this(4);
  }

  /** A map sized for about {@code expected} entries (allocated on the first entry). */
  public LongMap(int expected) {
    initialCapacity = Integer.highestOneBit(Math.max(4, expected * 2 - 1)) << 1;
  }

  private static int mix(long k) {
    long h = k * 0x9E3779B97F4A7C15L;
    return (int) (h ^ (h >>> 32));
  }

  /** The value for {@code key}, or null. */
  @SuppressWarnings("unchecked")
  public V get(long key) {
    if (key == EMPTY) {
      return hasEmptyKey ? (V) emptyKeyValue : null;
    }
    long[] ks = keys;
    if (ks.length == 0) {
      return null;
    }
    int mask = ks.length - 1;
    for (int i = mix(key) & mask; ; i = (i + 1) & mask) {
      long k = ks[i];
      if (k == key) {
        return (V) values[i];
      }
      if (k == EMPTY) {
        return null;
      }
    }
  }

  /** Associates {@code value} (not null) with {@code key}; returns the previous value or null. */
  @SuppressWarnings("unchecked")
  public V put(long key, V value) {
    if (key == EMPTY) {
      V old = hasEmptyKey ? (V) emptyKeyValue : null;
      hasEmptyKey = true;
      emptyKeyValue = value;
      return old;
    }
    if (keys.length == 0) {
      keys = new long[initialCapacity];
      Arrays.fill(keys, EMPTY);
      values = new Object[initialCapacity];
    }
    long[] ks = keys;
    int mask = ks.length - 1;
    int i = mix(key) & mask;
    for (; ; i = (i + 1) & mask) {
      long k = ks[i];
      if (k == key) {
        V old = (V) values[i];
        values[i] = value;
        return old;
      }
      if (k == EMPTY) {
        break;
      }
    }
    ks[i] = key;
    values[i] = value;
    if (++size * 2 > ks.length) {
      grow();
    }
    return null;
  }

  private void grow() {
    long[] oldKeys = keys;
    Object[] oldValues = values;
    keys = new long[oldKeys.length * 2];
    Arrays.fill(keys, EMPTY);
    values = new Object[keys.length];
    int mask = keys.length - 1;
    for (int j = 0; j < oldKeys.length; j++) {
      long k = oldKeys[j];
      if (k != EMPTY) {
        int i = mix(k) & mask;
        while (keys[i] != EMPTY) {
          i = (i + 1) & mask;
        }
        keys[i] = k;
        values[i] = oldValues[j];
      }
    }
  }
}
