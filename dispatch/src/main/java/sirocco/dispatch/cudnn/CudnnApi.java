package sirocco.dispatch.cudnn;

/**
 * The cuDNN backend API as the graph builder sees it: descriptors, attributes, finalize, execute.
 * {@link Cudnn#api()} is the real one (FFM, every call checked); tests use a recording fake, so the
 * descriptor pattern Sirocco emits is pinned without a GPU.
 *
 * <p>Attribute values travel as {@code long[]} with the cuDNN attribute type beside them: INT64
 * values as they are; 32-bit types (C enums such as DATA_TYPE or POINTWISE_MODE, INT32) in the low
 * 32 bits; BOOLEAN as 0 or 1; FLOAT as {@link Float#floatToRawIntBits}; DOUBLE as {@link
 * Double#doubleToRawLongBits}; HANDLE, VOID_PTR and BACKEND_DESCRIPTOR as addresses. Every failing
 * call throws {@link CudnnException} naming the call, the descriptor type and the attribute.
 */
interface CudnnApi {
  /** A backend descriptor: its address and its {@code cudnnBackendDescriptorType_t}. */
  record Descriptor(long address, int type) {
    @Override
    public String toString() {
      return CudnnConstants.descriptorTypeName(type) + "@" + Long.toHexString(address);
    }
  }

  Descriptor create(int descriptorType);

  /**
   * Destroys a descriptor, checked like every other call: a failure is a {@link CudnnException}.
   * For normal-flow destroys whose caller can act on a failure; teardown uses {@link
   * #destroyQuietly}.
   */
  void destroy(Descriptor d);

  /**
   * Destroys a descriptor on a teardown path (unwinding after another failure, evicting, freeing
   * scratch descriptors): never throws and never prints; a failure is counted in {@link
   * Cudnn#teardownFailures()}, which {@link CudnnSdpa#explain()} shows. Errors (not exceptions)
   * still propagate.
   */
  default void destroyQuietly(Descriptor d) {
    try {
      destroy(d);
    } catch (RuntimeException e) {
      Cudnn.teardownFailed(e);
    }
  }

  void set(Descriptor d, int attribute, int attributeType, long... values);

  /**
   * {@code cudnnBackendGetAttribute}: asks for up to {@code inOut.length} elements and returns how
   * many cuDNN reports. For BACKEND_DESCRIPTOR attributes {@code inOut} holds descriptors the
   * caller created, which cuDNN fills in. An empty array asks only for the count.
   */
  long get(Descriptor d, int attribute, int attributeType, long[] inOut);

  /** A CHAR attribute (e.g. the execution plan's JSON) as a string. */
  String getString(Descriptor d, int attribute);

  void finalizeDescriptor(Descriptor d);

  void execute(long handle, Descriptor plan, Descriptor variantPack);

  // ---- typed helpers ----

  default void setInt64(Descriptor d, int attribute, long... values) {
    set(d, attribute, CudnnConstants.TYPE_INT64, values);
  }

  default void setDataType(Descriptor d, int attribute, int dataType) {
    set(d, attribute, CudnnConstants.TYPE_DATA_TYPE, dataType);
  }

  default void setBoolean(Descriptor d, int attribute, boolean value) {
    set(d, attribute, CudnnConstants.TYPE_BOOLEAN, value ? 1 : 0);
  }

  default void setFloat(Descriptor d, int attribute, float value) {
    set(d, attribute, CudnnConstants.TYPE_FLOAT, Float.floatToRawIntBits(value));
  }

  default void setDescriptors(Descriptor d, int attribute, Descriptor... values) {
    long[] a = new long[values.length];
    for (int i = 0; i < values.length; i++) {
      a[i] = values[i].address();
    }
    set(d, attribute, CudnnConstants.TYPE_BACKEND_DESCRIPTOR, a);
  }

  default long getInt64(Descriptor d, int attribute) {
    long[] out = new long[1];
    get(d, attribute, CudnnConstants.TYPE_INT64, out);
    return out[0];
  }
}
