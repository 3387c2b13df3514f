package sirocco.api;

/**
 * Four 32-bit words loaded or stored together (one 16-byte access). In kernels the compiler keeps
 * the four components in registers (no object is ever allocated on the GPU); an {@code Int4} may
 * live in locals and be passed to helper methods, but not stored in arrays or compared by
 * reference.
 */
public record Int4(int x, int y, int z, int w) {}
