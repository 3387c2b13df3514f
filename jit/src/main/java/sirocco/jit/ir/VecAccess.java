package sirocco.jit.ir;

/**
 * A vector load or store: {@code words} 32-bit words ({@code 2} or {@code 4}), through the
 * read-only path or not, as floats ({@code .f32}) or raw words ({@code .u32}).
 */
public record VecAccess(int words, boolean nc, boolean floats) {}
