/**
 * The kernel programming model: {@code KernelContext}, intrinsics and annotations. Depends on
 * nothing.
 */
module sirocco.api {
  exports sirocco.api;
}
