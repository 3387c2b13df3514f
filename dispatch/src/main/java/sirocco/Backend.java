package sirocco;

/** Where Sirocco runs kernels. */
public enum Backend {
  /** The CPU: every kernel runs as Java with GPU semantics. The default where no GPU exists. */
  JAVA,
  /** An NVIDIA GPU through the CUDA driver; kernels are compiled to PTX by Sirocco's compiler. */
  CUDA
}
