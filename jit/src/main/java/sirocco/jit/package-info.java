/**
 * Sirocco's kernel compiler: Java bytecode of kernel methods to PTX. Entry points: {@link
 * sirocco.jit.KernelCompiler}, {@link sirocco.jit.Target}, {@link sirocco.jit.CompiledKernel},
 * {@link sirocco.jit.KernelKey}; {@link sirocco.jit.PtxValidator} (optional JCuda) compiles the
 * result to SASS without a GPU. Internals live in {@code sirocco.jit.classfile} (bytecode to SSA),
 * {@code sirocco.jit.ir}, {@code sirocco.jit.pass} and {@code sirocco.jit.ptx}.
 */
package sirocco.jit;
