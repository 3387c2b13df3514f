package sirocco.jit.ir;

/**
 * A shared-memory allocation site ({@code ctx.allocate*LocalArray}), identified by its method and
 * bytecode offset: every inlined copy of the same site denotes the same block-shared array, as on
 * the Java backend.
 */
public record SharedSite(MethodId method, int bci, Elem elem) {}
