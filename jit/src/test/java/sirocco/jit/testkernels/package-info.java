/**
 * Test kernels: one {@code @Kernel} method per construct family, each a {@code public static}
 * method that writes its results to output arrays, so that the same kernel can run on the CPU (Java
 * backend) and on the GPU and be compared element by element.
 *
 * <p>Conventions (see each class's javadoc for the output layout):
 *
 * <ul>
 *   <li>Unless a kernel says otherwise it is launched with one thread per element {@code i < n}
 *       (the {@code n} or {@code chunks} parameter), in 1-D blocks of 32 threads; threads beyond
 *       {@code n} return at once.
 *   <li>Inputs may be arbitrary values, including the edge cases the kernel is about (NaN, ±0,
 *       infinities, subnormals, MIN/MAX); kernels guard integer division by zero themselves. {@code
 *       sirocco.jit.testutil.Inputs} generates the inputs the tests use (seeded).
 *   <li>Kernels that need a particular launch (shared arrays sized for a block, whole warps, one
 *       warp for mma, a 3-D launch for {@code WarpKernels.contextFields3d}) say so; {@code
 *       GpuCaseExporter.launch} gives the launch every test (IR differential, GPU) uses for each.
 *   <li>{@code @Kernel(validateWith = ...)} gives the specialization sets every test compiles.
 * </ul>
 */
package sirocco.jit.testkernels;
