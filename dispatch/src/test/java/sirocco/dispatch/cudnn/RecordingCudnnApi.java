package sirocco.dispatch.cudnn;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A fake of the cuDNN backend API that records every call and keeps each descriptor's attributes,
 * so tests can assert the descriptor pattern the graph builder emits. Heuristics return {@link
 * #configsPerMode} engine configs; {@link #failFinalize} scripts which finalizations fail.
 */
final class RecordingCudnnApi implements CudnnApi {
  /** One call: the function, the descriptor, and for set/get the attribute, type and values. */
  record Call(String fn, Descriptor d, int attribute, int type, long[] values) {
    @Override
    public String toString() {
      return fn
          + " "
          + (d == null ? "" : CudnnConstants.descriptorTypeName(d.type()))
          + (attribute < 0 ? "" : " " + CudnnConstants.attributeName(attribute))
          + (values == null ? "" : " " + Arrays.toString(values));
    }
  }

  /** A fake descriptor's state. */
  static final class Fake {
    final Descriptor d;
    final Map<Integer, long[]> attrs = new LinkedHashMap<>();
    final Map<Integer, Integer> types = new HashMap<>();
    boolean finalized;
    boolean destroyed;
    int configIndex = -1;

    Fake(Descriptor d) {
      this.d = d;
    }

    long[] get(int attribute) {
      return attrs.get(attribute);
    }

    long one(int attribute) {
      long[] v = attrs.get(attribute);
      if (v == null || v.length != 1) {
        throw new AssertionError(
            CudnnConstants.attributeName(attribute) + " not set once on " + d + ": " + attrs);
      }
      return v[0];
    }
  }

  final List<Call> calls = new ArrayList<>();
  final Map<Long, Fake> fakes = new LinkedHashMap<>();
  final List<Fake> created = new ArrayList<>();
  private long next = 0x1000;
  int configsPerMode = 2;
  long workspace = 4096;

  /** Finalizations for which this returns true fail with NOT_SUPPORTED_SHAPE. */
  Predicate<Fake> failFinalize = f -> false;

  /** Destroys for which this returns true fail with BAD_PARAM (the descriptor stays live). */
  Predicate<Fake> failDestroy = f -> false;

  int executes;

  @Override
  public Descriptor create(int type) {
    Descriptor d = new Descriptor(next, type);
    next += 0x10;
    Fake f = new Fake(d);
    fakes.put(d.address(), f);
    created.add(f);
    calls.add(new Call("create", d, -1, -1, null));
    return d;
  }

  Fake fake(Descriptor d) {
    Fake f = fakes.get(d.address());
    if (f == null) {
      throw new AssertionError("unknown descriptor " + d);
    }
    if (f.destroyed) {
      throw new AssertionError("use after destroy: " + d);
    }
    return f;
  }

  Fake fake(long address) {
    return fake(fakes.get(address).d);
  }

  @Override
  public void destroy(Descriptor d) {
    Fake f = fake(d);
    if (failDestroy.test(f)) {
      calls.add(new Call("destroy-failed", d, -1, -1, null));
      throw new CudnnException(
          "cudnnBackendDestroyDescriptor",
          CudnnConstants.STATUS_BAD_PARAM,
          "CUDNN_STATUS_BAD_PARAM",
          CudnnConstants.descriptorTypeName(d.type()),
          null,
          "scripted destroy failure");
    }
    f.destroyed = true;
    calls.add(new Call("destroy", d, -1, -1, null));
  }

  @Override
  public void set(Descriptor d, int attribute, int attributeType, long... values) {
    Fake f = fake(d);
    if (f.finalized) {
      throw new CudnnException(
          "cudnnBackendSetAttribute",
          CudnnConstants.STATUS_BAD_PARAM_NOT_FINALIZED,
          "CUDNN_STATUS_BAD_PARAM",
          CudnnConstants.descriptorTypeName(d.type()),
          CudnnConstants.attributeName(attribute),
          "set after finalize");
    }
    if (attributeType == CudnnConstants.TYPE_BACKEND_DESCRIPTOR) {
      for (long a : values) {
        Fake ref = fakes.get(a);
        if (ref == null || ref.destroyed) {
          throw new AssertionError(
              "dangling descriptor in " + CudnnConstants.attributeName(attribute));
        }
      }
    }
    f.attrs.put(attribute, values.clone());
    f.types.put(attribute, attributeType);
    calls.add(new Call("set", d, attribute, attributeType, values.clone()));
  }

  @Override
  public long get(Descriptor d, int attribute, int attributeType, long[] inOut) {
    Fake f = fake(d);
    calls.add(new Call("get", d, attribute, attributeType, inOut.clone()));
    switch (attribute) {
      case CudnnConstants.ATTR_ENGINEHEUR_RESULTS -> {
        for (int i = 0; i < Math.min(inOut.length, configsPerMode); i++) {
          Fake cfg = fake(inOut[i]);
          cfg.configIndex = i;
          cfg.finalized = true;
        }
        return configsPerMode;
      }
      case CudnnConstants.ATTR_EXECUTION_PLAN_WORKSPACE_SIZE -> {
        inOut[0] = workspace;
        return 1;
      }
      case CudnnConstants.ATTR_ENGINECFG_ENGINE -> {
        Fake engine = fake(inOut[0]);
        engine.attrs.put(CudnnConstants.ATTR_ENGINE_GLOBAL_INDEX, new long[] {40 + f.configIndex});
        return 1;
      }
      case CudnnConstants.ATTR_ENGINE_GLOBAL_INDEX -> {
        inOut[0] = f.one(attribute);
        return 1;
      }
      case CudnnConstants.ATTR_ENGINE_BEHAVIOR_NOTE, CudnnConstants.ATTR_ENGINECFG_KNOB_CHOICES -> {
        return 0;
      }
      default ->
          throw new AssertionError("unexpected get " + CudnnConstants.attributeName(attribute));
    }
  }

  @Override
  public String getString(Descriptor d, int attribute) {
    return "{\"fake\": true}";
  }

  @Override
  public void finalizeDescriptor(Descriptor d) {
    Fake f = fake(d);
    calls.add(new Call("finalize", d, -1, -1, null));
    if (failFinalize.test(f)) {
      throw new CudnnException(
          "cudnnBackendFinalize",
          CudnnConstants.STATUS_NOT_SUPPORTED_SHAPE,
          "CUDNN_STATUS_NOT_SUPPORTED_SHAPE",
          CudnnConstants.descriptorTypeName(d.type()),
          null,
          "scripted failure");
    }
    f.finalized = true;
  }

  @Override
  public void execute(long handle, Descriptor plan, Descriptor variantPack) {
    if (!fake(plan).finalized || !fake(variantPack).finalized) {
      throw new AssertionError("execute with unfinalized descriptors");
    }
    calls.add(new Call("execute", variantPack, -1, -1, new long[] {handle}));
    executes++;
  }

  // ---- queries for tests ----

  long live() {
    return fakes.values().stream().filter(f -> !f.destroyed).count();
  }

  List<Fake> ofType(int type) {
    return created.stream().filter(f -> f.d.type() == type).toList();
  }

  /** The tensor descriptor with this unique id. */
  Fake tensor(long uid) {
    return ofType(CudnnConstants.TENSOR_DESCRIPTOR).stream()
        .filter(f -> f.attrs.containsKey(CudnnConstants.ATTR_TENSOR_UNIQUE_ID))
        .filter(f -> f.one(CudnnConstants.ATTR_TENSOR_UNIQUE_ID) == uid)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no tensor with uid " + uid));
  }

  Fake byAddress(long a) {
    return fakes.get(a);
  }
}
