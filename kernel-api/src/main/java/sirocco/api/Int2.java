package sirocco.api;

/**
 * Two 32-bit words loaded or stored together (one 8-byte access); kept in registers like {@link
 * Int4}.
 */
public record Int2(int x, int y) {}
