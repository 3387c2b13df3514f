package sirocco.api;

/**
 * Four floats loaded or stored together (one 16-byte access); kept in registers like {@link Int4}.
 */
public record Float4(float x, float y, float z, float w) {}
