package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static sirocco.dispatch.cudnn.CudnnConstants.*;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import sirocco.dispatch.cudnn.RecordingCudnnApi.Fake;

/**
 * The descriptor pattern the SDPA graph builder emits, against a recording fake of the backend API:
 * descriptor types, attributes, data types, UIDs, op order, plan search and cleanup. This pins the
 * cudnn-frontend composite pattern (see {@link CudnnSdpaGraph}) so a change to it is deliberate.
 */
class CudnnSdpaGraphTest {
  static final long HANDLE = 0xABC0;

  /** B=2, Hq=8, Hkv=2, Lq, Lkv, D=64, Q/K/V/O in BHSD layout. */
  static CudnnSdpaKey key(long lq, long lkv, CudnnSdpaKey.MaskKind mask) {
    long[] q = {8 * lq * 64, lq * 64, 64, 1};
    long[] kv = {2 * lkv * 64, lkv * 64, 64, 1};
    long[] biasDims = mask == CudnnSdpaKey.MaskKind.BIAS ? new long[] {1, 8, lq, lkv} : null;
    long[] biasStrides =
        mask == CudnnSdpaKey.MaskKind.BIAS ? new long[] {8 * lq * lkv, lq * lkv, lkv, 1} : null;
    return new CudnnSdpaKey(
        0, DATA_BFLOAT16, 2, 8, 2, lq, lkv, 64, 64, q, kv, kv, q, mask, biasDims, biasStrides);
  }

  /** The op descriptors in the order the graph lists them, as short names. */
  static List<String> opPattern(RecordingCudnnApi api, CudnnApi.Descriptor graph) {
    long[] ops = api.byAddress(graph.address()).get(ATTR_OPERATIONGRAPH_OPS);
    return Arrays.stream(ops).mapToObj(a -> describeOp(api, api.byAddress(a))).toList();
  }

  static String describeOp(RecordingCudnnApi api, Fake op) {
    return switch (op.d.type()) {
      case OPERATION_MATMUL_DESCRIPTOR -> "MATMUL";
      case OPERATION_REDUCTION_DESCRIPTOR -> {
        Fake r = api.byAddress(op.one(ATTR_OPERATION_REDUCTION_DESC));
        yield r.one(ATTR_REDUCTION_OPERATOR) == REDUCE_MAX ? "REDUCE_MAX" : "REDUCE_ADD";
      }
      case OPERATION_POINTWISE_DESCRIPTOR -> {
        Fake pw = api.byAddress(op.one(ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR));
        yield pointwiseModeName((int) pw.one(ATTR_POINTWISE_MODE));
      }
      default -> descriptorTypeName(op.d.type());
    };
  }

  static Fake pointwiseDesc(RecordingCudnnApi api, Fake op) {
    return api.byAddress(op.one(ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR));
  }

  static Fake input(RecordingCudnnApi api, Fake op, int attribute) {
    return api.byAddress(op.one(attribute));
  }

  static long uid(Fake tensor) {
    return tensor.one(ATTR_TENSOR_UNIQUE_ID);
  }

  @Test
  void noMaskGraphHasTheFrontendsInferencePattern() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaGraph.Built b =
        CudnnSdpaGraph.build(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertEquals(
        List.of(
            "MATMUL",
            "MUL",
            "REDUCE_MAX",
            "SUB",
            "EXP",
            "REDUCE_ADD",
            "LOG",
            "ADD",
            "DIV",
            "MATMUL"),
        opPattern(api, b.graph()));
    assertEquals(HANDLE, api.byAddress(b.graph().address()).one(ATTR_OPERATIONGRAPH_HANDLE));
    assertEquals(
        TYPE_HANDLE, api.byAddress(b.graph().address()).types.get(ATTR_OPERATIONGRAPH_HANDLE));
    assertArrayEquals(new long[] {CudnnSdpaGraph.UID_SCALE}, b.byValueUids());

    // Q: as given. K: transposed to [B, Hkv, D, Lkv] by swapping the last dims and strides.
    Fake q = api.tensor(CudnnSdpaGraph.UID_Q);
    assertArrayEquals(new long[] {2, 8, 128, 64}, q.get(ATTR_TENSOR_DIMENSIONS));
    assertArrayEquals(new long[] {8 * 128 * 64, 128 * 64, 64, 1}, q.get(ATTR_TENSOR_STRIDES));
    assertEquals(DATA_BFLOAT16, q.one(ATTR_TENSOR_DATA_TYPE));
    assertEquals(0, q.one(ATTR_TENSOR_IS_VIRTUAL));
    Fake k = api.tensor(CudnnSdpaGraph.UID_K);
    assertArrayEquals(new long[] {2, 2, 64, 128}, k.get(ATTR_TENSOR_DIMENSIONS));
    assertArrayEquals(new long[] {2 * 128 * 64, 128 * 64, 1, 64}, k.get(ATTR_TENSOR_STRIDES));
    Fake v = api.tensor(CudnnSdpaGraph.UID_V);
    assertArrayEquals(new long[] {2, 2, 128, 64}, v.get(ATTR_TENSOR_DIMENSIONS));
    Fake o = api.tensor(CudnnSdpaGraph.UID_O);
    assertArrayEquals(new long[] {2, 8, 128, 64}, o.get(ATTR_TENSOR_DIMENSIONS));
    assertEquals(0, o.one(ATTR_TENSOR_IS_VIRTUAL));

    // The scale: a FLOAT by-value [1,1,1,1] tensor.
    Fake scale = api.tensor(CudnnSdpaGraph.UID_SCALE);
    assertEquals(DATA_FLOAT, scale.one(ATTR_TENSOR_DATA_TYPE));
    assertEquals(1, scale.one(ATTR_TENSOR_IS_BY_VALUE));
    assertArrayEquals(new long[] {1, 1, 1, 1}, scale.get(ATTR_TENSOR_DIMENSIONS));

    // Every tensor: 16-byte aligned, finalized; virtual ones numbered from 100.
    for (Fake t : api.ofType(TENSOR_DESCRIPTOR)) {
      assertEquals(16, t.one(ATTR_TENSOR_BYTE_ALIGNMENT));
      assertTrue(t.finalized);
      if (t.one(ATTR_TENSOR_IS_VIRTUAL) == 1) {
        assertTrue(uid(t) >= CudnnSdpaGraph.FIRST_VIRTUAL_UID);
      }
    }

    long[] ops = api.byAddress(b.graph().address()).get(ATTR_OPERATIONGRAPH_OPS);
    Fake bmm1 = api.byAddress(ops[0]);
    assertEquals(CudnnSdpaGraph.UID_Q, uid(input(api, bmm1, ATTR_OPERATION_MATMUL_ADESC)));
    assertEquals(CudnnSdpaGraph.UID_K, uid(input(api, bmm1, ATTR_OPERATION_MATMUL_BDESC)));
    Fake s = input(api, bmm1, ATTR_OPERATION_MATMUL_CDESC);
    assertEquals(1, s.one(ATTR_TENSOR_IS_VIRTUAL));
    assertEquals(DATA_FLOAT, s.one(ATTR_TENSOR_DATA_TYPE));
    assertArrayEquals(new long[] {2, 8, 128, 128}, s.get(ATTR_TENSOR_DIMENSIONS));
    assertEquals(
        DATA_FLOAT, api.byAddress(bmm1.one(ATTR_OPERATION_MATMUL_DESC)).one(ATTR_MATMUL_COMP_TYPE));

    Fake mul = api.byAddress(ops[1]);
    assertEquals(uid(s), uid(input(api, mul, ATTR_OPERATION_POINTWISE_XDESC)));
    assertEquals(CudnnSdpaGraph.UID_SCALE, uid(input(api, mul, ATTR_OPERATION_POINTWISE_BDESC)));
    assertEquals(Float.floatToRawIntBits(1f), (int) mul.one(ATTR_OPERATION_POINTWISE_ALPHA1));
    assertEquals(TYPE_FLOAT, mul.types.get(ATTR_OPERATION_POINTWISE_ALPHA2));

    // Softmax reductions produce [B, Hq, Lq, 1] FLOAT.
    Fake max = input(api, api.byAddress(ops[2]), ATTR_OPERATION_REDUCTION_YDESC);
    assertArrayEquals(new long[] {2, 8, 128, 1}, max.get(ATTR_TENSOR_DIMENSIONS));
    assertEquals(DATA_FLOAT, max.one(ATTR_TENSOR_DATA_TYPE));

    // P (the DIV's output) is virtual in the I/O type and is bmm2's A; bmm2 writes O.
    Fake div = api.byAddress(ops[8]);
    Fake p = input(api, div, ATTR_OPERATION_POINTWISE_YDESC);
    assertEquals(DATA_BFLOAT16, p.one(ATTR_TENSOR_DATA_TYPE));
    assertEquals(1, p.one(ATTR_TENSOR_IS_VIRTUAL));
    Fake bmm2 = api.byAddress(ops[9]);
    assertEquals(uid(p), uid(input(api, bmm2, ATTR_OPERATION_MATMUL_ADESC)));
    assertEquals(CudnnSdpaGraph.UID_V, uid(input(api, bmm2, ATTR_OPERATION_MATMUL_BDESC)));
    assertEquals(CudnnSdpaGraph.UID_O, uid(input(api, bmm2, ATTR_OPERATION_MATMUL_CDESC)));

    // Stats (M + log Z) is computed into a virtual tensor nobody reads: inference keeps the
    // pattern.
    Fake statsAdd = api.byAddress(ops[7]);
    assertEquals(
        1, input(api, statsAdd, ATTR_OPERATION_POINTWISE_YDESC).one(ATTR_TENSOR_IS_VIRTUAL));

    // Every descriptor made was finalized, none destroyed yet.
    for (Fake f : api.created) {
      assertTrue(f.finalized, f.d + " not finalized");
      assertFalse(f.destroyed);
    }
  }

  @Test
  void causalSquareUsesTopLeftIndexCompareSelect() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaGraph.Built b =
        CudnnSdpaGraph.build(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.CAUSAL));
    assertEquals(
        List.of(
            "MATMUL",
            "MUL",
            "GEN_INDEX",
            "GEN_INDEX",
            "CMP_GE",
            "BINARY_SELECT",
            "REDUCE_MAX",
            "SUB",
            "EXP",
            "REDUCE_ADD",
            "LOG",
            "ADD",
            "DIV",
            "MATMUL"),
        opPattern(api, b.graph()));
    long[] ops = api.byAddress(b.graph().address()).get(ATTR_OPERATIONGRAPH_OPS);
    Fake rowIdx = api.byAddress(ops[2]);
    Fake colIdx = api.byAddress(ops[3]);
    assertEquals(2, pointwiseDesc(api, rowIdx).one(ATTR_POINTWISE_AXIS));
    assertEquals(3, pointwiseDesc(api, colIdx).one(ATTR_POINTWISE_AXIS));
    Fake row = input(api, rowIdx, ATTR_OPERATION_POINTWISE_YDESC);
    assertEquals(DATA_INT32, row.one(ATTR_TENSOR_DATA_TYPE));
    Fake cmp = api.byAddress(ops[4]);
    assertEquals(DATA_BOOLEAN, pointwiseDesc(api, cmp).one(ATTR_POINTWISE_MATH_PREC));
    assertEquals(uid(row), uid(input(api, cmp, ATTR_OPERATION_POINTWISE_XDESC)));
    Fake keep = input(api, cmp, ATTR_OPERATION_POINTWISE_YDESC);
    assertEquals(DATA_BOOLEAN, keep.one(ATTR_TENSOR_DATA_TYPE));
    Fake select = api.byAddress(ops[5]);
    assertEquals(uid(keep), uid(input(api, select, ATTR_OPERATION_POINTWISE_TDESC)));
    Fake negInf = input(api, select, ATTR_OPERATION_POINTWISE_BDESC);
    assertEquals(CudnnSdpaGraph.UID_NEG_INF, uid(negInf));
    assertEquals(1, negInf.one(ATTR_TENSOR_IS_BY_VALUE));
    // The select masks the scaled scores.
    Fake mulOut = input(api, api.byAddress(ops[1]), ATTR_OPERATION_POINTWISE_YDESC);
    assertEquals(uid(mulOut), uid(input(api, select, ATTR_OPERATION_POINTWISE_XDESC)));
    assertArrayEquals(
        new long[] {CudnnSdpaGraph.UID_SCALE, CudnnSdpaGraph.UID_NEG_INF}, b.byValueUids());
    // GEN_INDEX is the only mode that sets an axis.
    for (long a : ops) {
      Fake op = api.byAddress(a);
      if (op.d.type() == OPERATION_POINTWISE_DESCRIPTOR) {
        Fake pw = pointwiseDesc(api, op);
        assertEquals(
            pw.one(ATTR_POINTWISE_MODE) == PW_GEN_INDEX, pw.attrs.containsKey(ATTR_POINTWISE_AXIS));
      }
    }
  }

  @Test
  void causalWithLqBelowLkvShiftsTheRowIndexBottomRight() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaGraph.Built b =
        CudnnSdpaGraph.build(api, HANDLE, key(64, 128, CudnnSdpaKey.MaskKind.CAUSAL));
    assertEquals(
        List.of(
            "MATMUL",
            "MUL",
            "GEN_INDEX",
            "GEN_INDEX",
            "ADD",
            "SUB",
            "CMP_GE",
            "BINARY_SELECT",
            "REDUCE_MAX",
            "SUB",
            "EXP",
            "REDUCE_ADD",
            "LOG",
            "ADD",
            "DIV",
            "MATMUL"),
        opPattern(api, b.graph()));
    long[] ops = api.byAddress(b.graph().address()).get(ATTR_OPERATIONGRAPH_OPS);
    Fake add = api.byAddress(ops[4]);
    Fake sub = api.byAddress(ops[5]);
    assertEquals(DATA_INT32, pointwiseDesc(api, add).one(ATTR_POINTWISE_MATH_PREC));
    assertEquals(DATA_INT32, pointwiseDesc(api, sub).one(ATTR_POINTWISE_MATH_PREC));
    Fake seqKv = input(api, add, ATTR_OPERATION_POINTWISE_BDESC);
    Fake seqQ = input(api, sub, ATTR_OPERATION_POINTWISE_BDESC);
    assertEquals(CudnnSdpaGraph.UID_SEQ_KV, uid(seqKv));
    assertEquals(CudnnSdpaGraph.UID_SEQ_Q, uid(seqQ));
    assertEquals(DATA_INT32, seqKv.one(ATTR_TENSOR_DATA_TYPE));
    assertEquals(1, seqQ.one(ATTR_TENSOR_IS_BY_VALUE));
    // row + Lkv − Lq feeds the comparison's X; the column index its B.
    Fake cmp = api.byAddress(ops[6]);
    assertEquals(
        uid(input(api, sub, ATTR_OPERATION_POINTWISE_YDESC)),
        uid(input(api, cmp, ATTR_OPERATION_POINTWISE_XDESC)));
    assertEquals(
        uid(input(api, api.byAddress(ops[3]), ATTR_OPERATION_POINTWISE_YDESC)),
        uid(input(api, cmp, ATTR_OPERATION_POINTWISE_BDESC)));
    assertArrayEquals(
        new long[] {
          CudnnSdpaGraph.UID_SCALE,
          CudnnSdpaGraph.UID_SEQ_KV,
          CudnnSdpaGraph.UID_SEQ_Q,
          CudnnSdpaGraph.UID_NEG_INF
        },
        b.byValueUids());
  }

  @Test
  void biasIsAddedAfterTheScale() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaGraph.Built b =
        CudnnSdpaGraph.build(api, HANDLE, key(65, 127, CudnnSdpaKey.MaskKind.BIAS));
    assertEquals(
        List.of(
            "MATMUL",
            "MUL",
            "ADD",
            "REDUCE_MAX",
            "SUB",
            "EXP",
            "REDUCE_ADD",
            "LOG",
            "ADD",
            "DIV",
            "MATMUL"),
        opPattern(api, b.graph()));
    Fake bias = api.tensor(CudnnSdpaGraph.UID_BIAS);
    assertArrayEquals(new long[] {1, 8, 65, 127}, bias.get(ATTR_TENSOR_DIMENSIONS));
    assertArrayEquals(new long[] {8 * 65 * 127, 65 * 127, 127, 1}, bias.get(ATTR_TENSOR_STRIDES));
    assertEquals(DATA_BFLOAT16, bias.one(ATTR_TENSOR_DATA_TYPE));
    long[] ops = api.byAddress(b.graph().address()).get(ATTR_OPERATIONGRAPH_OPS);
    Fake add = api.byAddress(ops[2]);
    assertEquals(CudnnSdpaGraph.UID_BIAS, uid(input(api, add, ATTR_OPERATION_POINTWISE_BDESC)));
    assertEquals(
        uid(input(api, api.byAddress(ops[1]), ATTR_OPERATION_POINTWISE_YDESC)),
        uid(input(api, add, ATTR_OPERATION_POINTWISE_XDESC)));
  }

  @Test
  void planTriesConfigsInOrderAndRecordsWhyEachFailed() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.configsPerMode = 3;
    api.failFinalize =
        f ->
            f.d.type() == EXECUTION_PLAN_DESCRIPTOR
                && api.byAddress(f.one(ATTR_EXECUTION_PLAN_ENGINE_CONFIG)).configIndex == 0;
    CudnnSdpaGraph.Planned p =
        CudnnSdpaGraph.plan(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertTrue(p.ok(), p.failure());
    assertEquals(4096, p.workspaceBytes());
    assertEquals("heuristics A #1 eng41", p.engine());
    assertEquals(1, p.rejected().size());
    assertTrue(
        p.rejected().get(0).startsWith("heuristics A #0 eng40: CUDNN_STATUS_NOT_SUPPORTED_SHAPE"),
        p.rejected().get(0));
    // The heuristic asked for mode A and the plan carries the handle.
    Fake heur = api.ofType(ENGINEHEUR_DESCRIPTOR).get(0);
    assertEquals(HEUR_MODE_A, heur.one(ATTR_ENGINEHEUR_MODE));
    assertEquals(TYPE_HEUR_MODE, heur.types.get(ATTR_ENGINEHEUR_MODE));
    Fake plan = api.byAddress(p.plan().address());
    assertEquals(HANDLE, plan.one(ATTR_EXECUTION_PLAN_HANDLE));
    // Only what the plan needs is alive: heuristics, unused configs, failed plans, engines are
    // gone.
    assertEquals(p.owned().size(), api.live());
    assertTrue(heur.destroyed);
    assertTrue(api.ofType(ENGINE_DESCRIPTOR).stream().allMatch(f -> f.destroyed));

    CudnnSdpaPlan entry = CudnnSdpaPlan.of(api, key(128, 128, CudnnSdpaKey.MaskKind.NONE), p);
    entry.evict();
    assertEquals(0, api.live(), "evicting destroys every descriptor");
  }

  @Test
  void whenNoConfigFinalizesBothModesAreTriedAndNothingLeaks() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.failFinalize = f -> f.d.type() == EXECUTION_PLAN_DESCRIPTOR;
    CudnnSdpaGraph.Planned p =
        CudnnSdpaGraph.plan(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertFalse(p.ok());
    assertEquals(4, p.rejected().size(), p.rejected().toString());
    assertTrue(p.failure().startsWith("no execution plan finalized: heuristics A #0"), p.failure());
    assertTrue(p.failure().contains("heuristics FALLBACK #1"), p.failure());
    assertEquals(
        List.of((long) HEUR_MODE_A, (long) HEUR_MODE_FALLBACK),
        api.ofType(ENGINEHEUR_DESCRIPTOR).stream().map(f -> f.one(ATTR_ENGINEHEUR_MODE)).toList());
    assertEquals(0, api.live());
  }

  @Test
  void aGraphCuDnnRejectsIsAReasonNotAnExceptionAndLeavesNothing() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.failFinalize = f -> f.d.type() == OPERATION_MATMUL_DESCRIPTOR;
    CudnnSdpaGraph.Planned p =
        CudnnSdpaGraph.plan(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertFalse(p.ok());
    assertTrue(
        p.failure()
            .startsWith(
                "graph not built: cudnnBackendFinalize failed on"
                    + " CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR: CUDNN_STATUS_NOT_SUPPORTED_SHAPE"),
        p.failure());
    assertEquals(0, api.live());
  }

  @Test
  void executeBuildsAVariantPackWithEveryUidAndKeepsItUntilEviction() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaKey k = key(64, 128, CudnnSdpaKey.MaskKind.CAUSAL);
    CudnnSdpaPlan entry = CudnnSdpaPlan.build(api, HANDLE, k);
    assertTrue(entry.ok(), entry.failure);
    assertTrue(entry.acquire());
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.125f, 0x50000);
    entry.release();
    assertEquals(1, api.executes);
    Fake pack = api.ofType(VARIANT_PACK_DESCRIPTOR).get(0);
    assertTrue(pack.finalized);
    assertFalse(pack.destroyed, "the pack is kept for the next call with the same buffers");
    long[] uids = pack.get(ATTR_VARIANT_PACK_UNIQUE_IDS);
    long[] ptrs = pack.get(ATTR_VARIANT_PACK_DATA_POINTERS);
    assertArrayEquals(new long[] {1, 2, 3, 4, 5, 9, 8, 7}, uids);
    assertArrayEquals(new long[] {0x10000, 0x20000, 0x30000, 0x40000}, Arrays.copyOf(ptrs, 4));
    for (int i = 4; i < ptrs.length; i++) {
      assertNotEquals(0, ptrs[i], "by-value scalar " + uids[i] + " needs a host pointer");
    }
    assertEquals(TYPE_VOID_PTR, pack.types.get(ATTR_VARIANT_PACK_DATA_POINTERS));
    assertArrayEquals(new long[] {0x50000}, pack.get(ATTR_VARIANT_PACK_WORKSPACE));
    entry.evict();
    assertTrue(pack.destroyed);
    assertEquals(0, api.live());
  }

  @Test
  void variantPacksAreReusedPerBuffersAndScaleAndTheOldestIsDestroyed() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(64, 128, CudnnSdpaKey.MaskKind.NONE));
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.125f, 0x50000);
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.125f, 0x50000);
    assertEquals(2, api.executes);
    assertEquals(1, api.ofType(VARIANT_PACK_DESCRIPTOR).size(), "same buffers: one pack");
    // A different scale is a different by-value scalar: a new pack, never the old one's value.
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.25f, 0x50000);
    assertEquals(2, api.ofType(VARIANT_PACK_DESCRIPTOR).size());
    // Another output buffer or workspace: a new pack each.
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x48000, 0, 0.125f, 0x50000);
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.125f, 0x58000);
    List<Fake> packs = api.ofType(VARIANT_PACK_DESCRIPTOR);
    assertEquals(4, packs.size());
    assertEquals(0x48000, packs.get(2).get(ATTR_VARIANT_PACK_DATA_POINTERS)[3]);
    assertArrayEquals(new long[] {0x58000}, packs.get(3).get(ATTR_VARIANT_PACK_WORKSPACE));
    assertArrayEquals(new long[] {1, 4, 4}, entry.packStats(), "{hits, misses, kept}");
    // Past the bound the least recently used pack (the first one) goes first.
    for (int i = 0; i < CudnnSdpaPlan.PACKS; i++) {
      entry.execute(HANDLE, 0x90000 + 0x1000L * i, 0x20000, 0x30000, 0x40000, 0, 1f, 0);
    }
    assertTrue(packs.get(0).destroyed, "the least recently used pack is destroyed when evicted");
    long live = api.ofType(VARIANT_PACK_DESCRIPTOR).stream().filter(f -> !f.destroyed).count();
    assertEquals(CudnnSdpaPlan.PACKS, live);
    entry.evict();
    assertEquals(0, api.live());
  }

  @Test
  void teardownDestroysThatFailAreCountedNotThrownNorPrinted() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 1f, 0);
    api.failDestroy = f -> f.d.type() == VARIANT_PACK_DESCRIPTOR || f.d.type() == TENSOR_DESCRIPTOR;
    long failing =
        api.created.stream().filter(f -> !f.destroyed && api.failDestroy.test(f)).count();
    assertTrue(failing >= 2, "the pack and the graph's tensors");
    long before = Cudnn.teardownFailures();
    java.io.PrintStream err = System.err;
    java.io.ByteArrayOutputStream captured = new java.io.ByteArrayOutputStream();
    System.setErr(new java.io.PrintStream(captured, true));
    try {
      entry.evict(); // teardown: must neither throw nor print
    } finally {
      System.setErr(err);
    }
    assertTrue(entry.destroyed());
    assertEquals(failing, Cudnn.teardownFailures() - before);
    assertEquals("", captured.toString());
    assertEquals(failing, api.live(), "only the descriptors cuDNN refused to destroy are left");
    assertTrue(
        Cudnn.lastTeardownFailure().startsWith("cudnnBackendDestroyDescriptor failed on"),
        Cudnn.lastTeardownFailure());
    String line =
        CudnnSdpa.explain().stream()
            .filter(l -> l.startsWith("cuDNN teardown failures: "))
            .findFirst()
            .orElseThrow(() -> new AssertionError("explain shows no teardown failures"));
    assertTrue(line.contains("scripted destroy failure"), line);
  }

  @Test
  void aFailedDestroyWhenMakingRoomForAPackThrowsBeforeAnythingRuns() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(64, 128, CudnnSdpaKey.MaskKind.NONE));
    for (int i = 0; i < CudnnSdpaPlan.PACKS; i++) {
      entry.execute(HANDLE, 0x90000 + 0x1000L * i, 0x20000, 0x30000, 0x40000, 0, 1f, 0);
    }
    api.failDestroy = f -> f.d.type() == VARIANT_PACK_DESCRIPTOR;
    int packsBefore = api.ofType(VARIANT_PACK_DESCRIPTOR).size();
    long teardownBefore = Cudnn.teardownFailures();
    CudnnException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            CudnnException.class,
            () -> entry.execute(HANDLE, 0xA0000, 0x20000, 0x30000, 0x40000, 0, 1f, 0));
    assertEquals("cudnnBackendDestroyDescriptor", e.call());
    assertEquals(CudnnSdpaPlan.PACKS, api.executes, "nothing ran for the failed call");
    assertEquals(packsBefore, api.ofType(VARIANT_PACK_DESCRIPTOR).size(), "no pack was made");
    assertEquals(teardownBefore, Cudnn.teardownFailures(), "a normal-flow failure is thrown");
    // The pack whose destroy failed is out of the cache; the next call makes room and runs.
    api.failDestroy = f -> false;
    entry.execute(HANDLE, 0xA0000, 0x20000, 0x30000, 0x40000, 0, 1f, 0);
    assertEquals(CudnnSdpaPlan.PACKS + 1, api.executes);
    assertArrayEquals(
        new long[] {0, CudnnSdpaPlan.PACKS + 2, CudnnSdpaPlan.PACKS},
        entry.packStats(),
        "{hits, misses, kept}");
  }

  @Test
  void biasPointerGoesInTheVariantPack() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(65, 127, CudnnSdpaKey.MaskKind.BIAS));
    entry.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0x60000, 1f, 0);
    Fake pack = api.ofType(VARIANT_PACK_DESCRIPTOR).get(0);
    assertArrayEquals(new long[] {1, 2, 3, 4, 6, 5}, pack.get(ATTR_VARIANT_PACK_UNIQUE_IDS));
    assertEquals(0x60000, pack.get(ATTR_VARIANT_PACK_DATA_POINTERS)[4]);
  }

  @Test
  void anEntryInUseIsDestroyedOnlyAfterItsLastRelease() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertTrue(entry.acquire());
    entry.evict();
    assertFalse(entry.destroyed());
    assertTrue(api.live() > 0);
    entry.release();
    assertTrue(entry.destroyed());
    assertEquals(0, api.live());
    assertFalse(entry.acquire(), "a destroyed entry cannot be acquired");
  }

  @Test
  void failedEntriesHoldTheReasonAndNoDescriptors() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.configsPerMode = 0;
    CudnnSdpaPlan entry =
        CudnnSdpaPlan.build(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE));
    assertFalse(entry.ok());
    assertEquals(
        "no execution plan finalized: heuristics A: no engine configs; heuristics FALLBACK: no"
            + " engine configs",
        entry.failure);
    assertNull(entry.plan);
    assertEquals(0, api.live());
  }
}
