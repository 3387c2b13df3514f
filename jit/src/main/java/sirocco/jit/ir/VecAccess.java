package sirocco.jit.ir;

/**
 * A vector load or store: {@code words} 32-bit words ({@code 2} or {@code 4}), through the
 * read-only path or not, as floats ({@code .f32}) or raw words ({@code .u32}).
 */
public record VecAccess(int words, boolean nc, boolean floats) {
  @Override
  public boolean equals(Object o) {
    return o instanceof VecAccess v && v.words == words && v.nc == nc && v.floats == floats;
  }

  @Override
  public int hashCode() {
    return words * 4 + (nc ? 2 : 0) + (floats ? 1 : 0);
  }
}
