package sirocco.runtime;

/** A grid or block extent in up to three dimensions; every component is at least 1. */
public record Dim3(int x, int y, int z) {
  public Dim3 {
    if (x < 1 || y < 1 || z < 1) {
      throw new IllegalArgumentException(
          "dimensions must be positive, got (" + x + ", " + y + ", " + z + ")");
    }
  }

  public static Dim3 of(int x) {
    return new Dim3(x, 1, 1);
  }

  public static Dim3 of(int x, int y) {
    return new Dim3(x, y, 1);
  }

  public long count() {
    return (long) x * y * z;
  }

  @Override
  public String toString() {
    return "(" + x + ", " + y + ", " + z + ")";
  }
}
