package sirocco.jit.ir;

/**
 * A warpgroup product's input type and how B lies in shared memory; aux of {@link Op#WGMMA}. Core
 * matrices ({@code swizzle} 0): args = [a0..a3, b, bIndex, lbo, sbo, c...]. Swizzled K-major rows
 * ({@code swizzle} 32, 64 or 128, from {@code warpgroupMma*Swizzled}): the same positions hold
 * [a0..a3, b, bIndex, swizzle, 0, c...], so that every pass sees one argument layout.
 */
public record WgmmaKind(MmaKind mma, boolean swizzled) {}
