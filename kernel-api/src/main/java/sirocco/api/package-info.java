/**
 * The kernel programming model: what a Java method may contain to be compiled to PTX by Sirocco,
 * and the intrinsics it may call.
 *
 * <h2>Shape of a kernel</h2>
 *
 * A kernel is a {@code public static void} method whose first parameter is a {@link
 * sirocco.api.KernelContext}, followed by primitive arrays ({@code float[] int[] short[] byte[]
 * long[]}; {@code short[]} carries bf16/f16 bits, {@code int[]} also carries packed u32 words) and
 * primitive scalars. Scalars are real kernel parameters; a scalar marked {@link
 * sirocco.api.Specialize} is compiled in as a constant.
 *
 * <h2>Allowed inside</h2>
 *
 * <ul>
 *   <li>{@code int long float double boolean} (and {@code byte short char} locals) arithmetic,
 *       comparisons, shifts (Java masks the count: {@code x << 33 == x << 1}), bit operations,
 *       conversions, with Java's semantics: float {@code a * b + c} is two roundings (write {@link
 *       java.lang.Math#fma} for one), float division and {@code Math.sqrt} are correctly rounded,
 *       {@code Math.max/min} propagate NaN, {@code (int)} and {@code (long)} casts of NaN give 0
 *       and saturate;
 *   <li>loops, {@code if}/{@code else}, {@code switch} on ints, {@code ?:}, {@code &&}, {@code ||},
 *       {@code break}/{@code continue};
 *   <li>calls to other static methods (inlined; no recursion);
 *   <li>loads and stores on parameter arrays and on block-shared arrays from {@code
 *       ctx.allocate*LocalArray} with a constant length;
 *   <li>{@code Integer.bitCount}, {@code numberOfLeadingZeros}, {@code numberOfTrailingZeros},
 *       {@code Long.bitCount}, {@code Float.intBitsToFloat}, {@code floatToRawIntBits}, {@code
 *       float16ToFloat}, {@code floatToFloat16}, {@code Math.fma max min abs sqrt exp}, and the
 *       intrinsics of this package ({@link sirocco.api.Intrinsics}, {@link sirocco.api.Vec}, {@link
 *       sirocco.api.Bf16}, {@link sirocco.api.F16}, the context's barriers, fence, shuffles,
 *       atomics, tensor-core products and grid-dependency calls ({@code waitForPriorGrids}, {@code
 *       releaseDependentGrids}, for launches that start early);
 *   <li>asynchronous global-to-shared copies ({@link sirocco.api.Vec#copyAsync(int[], int, int[],
 *       int, int) Vec.copyAsync}, {@code commitAsync}, {@code waitAsync}: {@code cp.async}) from a
 *       parameter array into a shared array, with a constant size of 4, 8 or 16 bytes and a
 *       constant wait count of 0 to 7;
 *   <li>tile copies by the tensor memory accelerator ({@link sirocco.api.Vec#copyTileAsync(short[],
 *       int, long[], int, int, long[], int) Vec.copyTileAsync}, sm_90: a box of a matrix a {@link
 *       sirocco.api.TileMap tile map} parameter describes, into a shared array) completing on
 *       transaction barriers in a shared {@code long} array ({@link sirocco.api.Mbarrier}), and
 *       warpgroup products reading B from the swizzled rows such a copy writes ({@code
 *       ctx.warpgroupMmaBf16Swizzled});
 *   <li>the value records {@link sirocco.api.Int4}, {@link sirocco.api.Int2}, {@link
 *       sirocco.api.Float4}, kept in registers.
 * </ul>
 *
 * <h2>Not allowed</h2>
 *
 * {@code new} (other than the value records), exceptions ({@code throw}, {@code try}), instance
 * fields and virtual calls (other than on the context), recursion, strings, lambdas, {@code
 * synchronized}, static fields other than compile-time constants. Each is a {@link
 * sirocco.api.KernelCompileException} at compile time naming the class, method, source line and
 * bytecode offset.
 *
 * <h2>Differences between the GPU and the Java backend</h2>
 *
 * <ul>
 *   <li>The GPU has no bounds, null or division-by-zero checks: an out-of-range index is undefined
 *       behaviour there, and an exception on the Java backend, which is why tests run every kernel
 *       on the Java backend.
 *   <li>Integer division by zero is undefined on the GPU.
 *   <li>Approximate intrinsics ({@link sirocco.api.Intrinsics#exp2}, {@code log2}, {@code rsqrt},
 *       {@code fastDivide}) are correctly rounded on the CPU and within their documented bound on
 *       the GPU.
 *   <li>Float atomics accumulate in an unspecified order on both backends.
 *   <li>{@code Vec.copyAsync} copies at once on the Java backend, while on the GPU the data is
 *       defined only after a {@code Vec.waitAsync} covering it (and, for other threads, a barrier
 *       after that): a kernel that reads too early passes on the CPU and fails on the GPU, so the
 *       GPU differential tests matter for such kernels. Misaligned copies fault on the GPU and
 *       throw on the Java backend.
 *   <li>A launch made with early start may run beside the previous kernel on the GPU (sm_90+) until
 *       it calls {@code ctx.waitForPriorGrids()}; on the Java backend launches never overlap, so a
 *       kernel that reads the previous kernel's output before its wait passes there and races on
 *       the GPU.
 * </ul>
 */
package sirocco.api;
