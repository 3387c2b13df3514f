package sirocco.dispatch.cudnn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static sirocco.dispatch.cudnn.CudnnConstants.*;
import static sirocco.dispatch.cudnn.CudnnSdpaGraphTest.HANDLE;
import static sirocco.dispatch.cudnn.CudnnSdpaGraphTest.key;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sirocco.dispatch.cudnn.RecordingCudnnApi.Fake;

/**
 * Plan tuning ({@code -Dsirocco.cudnn.autotune}): which candidates are finalized, which one is
 * kept, what happens to the others, against the recording fake of the backend API and a scripted
 * timer (the GPU timing itself runs in the GPU benchmark).
 */
class CudnnSdpaTuningTest {
  @AfterEach
  void clearProperty() {
    System.clearProperty(CudnnSdpa.AUTOTUNE_PROPERTY);
  }

  private static RecordingCudnnApi apiWithFourConfigsOfWhichOneFails() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.configsPerMode = 4;
    api.failFinalize =
        f ->
            f.d.type() == EXECUTION_PLAN_DESCRIPTOR
                && api.byAddress(f.one(ATTR_EXECUTION_PLAN_ENGINE_CONFIG)).configIndex == 1;
    return api;
  }

  private static String engineIndex(CudnnSdpaPlan p) {
    return p.engine.substring(0, p.engine.indexOf(" eng"));
  }

  @Test
  void candidatesFollowTheHeuristicsOrderSkipRefusalsAndStopAtMax() {
    RecordingCudnnApi api = apiWithFourConfigsOfWhichOneFails();
    CudnnSdpaGraph.Candidates c =
        CudnnSdpaGraph.candidates(api, HANDLE, key(128, 128, CudnnSdpaKey.MaskKind.NONE), 2);
    assertTrue(c.ok(), c.failure());
    assertEquals(
        List.of("heuristics A #0 eng40", "heuristics A #2 eng42"),
        c.list().stream().map(CudnnSdpaGraph.Candidate::engine).toList());
    assertEquals(1, c.rejected().size(), c.rejected().toString());
    assertTrue(c.rejected().get(0).startsWith("heuristics A #1 eng41"), c.rejected().get(0));
    // Mode A gave plans, so FALLBACK was never asked; config #3 was never finalized (max 2).
    assertEquals(1, api.ofType(ENGINEHEUR_DESCRIPTOR).size());
    assertEquals(3, api.ofType(EXECUTION_PLAN_DESCRIPTOR).size());

    CudnnSdpaGraph.Planned p = CudnnSdpaGraph.choose(api, c, 1, " (picked)");
    assertEquals("heuristics A #2 eng42 (picked)", p.engine());
    assertEquals(p.owned().size(), api.live(), "the other candidate's plan and config are gone");
    assertTrue(api.byAddress(c.list().get(0).plan().address()).destroyed);
    assertTrue(api.byAddress(c.list().get(0).config().address()).destroyed);
    assertThrows(IllegalArgumentException.class, () -> CudnnSdpaGraph.choose(api, c, 2, ""));
  }

  @Test
  void tuningKeepsTheFastestCandidateAndListsEveryTime() {
    RecordingCudnnApi api = apiWithFourConfigsOfWhichOneFails();
    Map<String, Double> micros =
        Map.of("heuristics A #0", 10.5, "heuristics A #2", 9.25, "heuristics A #3", 12.0);
    CudnnSdpaPlan tuned =
        CudnnSdpaPlan.tuned(
            api,
            HANDLE,
            key(128, 128, CudnnSdpaKey.MaskKind.NONE),
            8,
            candidate -> {
              candidate.execute(HANDLE, 0x10000, 0x20000, 0x30000, 0x40000, 0, 0.125f, 0);
              return micros.get(engineIndex(candidate));
            });
    assertTrue(tuned.ok(), tuned.failure);
    assertTrue(
        tuned.engine.startsWith(
            "heuristics A #2 eng42 (tuned, best of 3: heuristics A #0 eng40 10.50 us;"
                + " heuristics A #2 eng42 9.25 us; heuristics A #3 eng43 12.00 us)"),
        tuned.engine);
    assertEquals(3, api.executes, "each candidate ran on the call's buffers");
    // The probes' variant packs and the losing plans are destroyed; only the kept plan lives.
    assertTrue(api.ofType(VARIANT_PACK_DESCRIPTOR).stream().allMatch(f -> f.destroyed));
    List<Fake> livePlans =
        api.ofType(EXECUTION_PLAN_DESCRIPTOR).stream().filter(f -> !f.destroyed).toList();
    assertEquals(1, livePlans.size());
    assertEquals(tuned.plan.address(), livePlans.get(0).d.address());
    tuned.evict();
    assertEquals(0, api.live(), "evicting the tuned plan destroys every descriptor");
  }

  @Test
  void aCandidateWhoseTimingFailsIsRecordedAndNotChosen() {
    RecordingCudnnApi api = apiWithFourConfigsOfWhichOneFails();
    CudnnSdpaPlan tuned =
        CudnnSdpaPlan.tuned(
            api,
            HANDLE,
            key(128, 128, CudnnSdpaKey.MaskKind.NONE),
            2,
            candidate -> {
              if (engineIndex(candidate).equals("heuristics A #0")) {
                throw new CudnnException(
                    "cudnnBackendExecute",
                    STATUS_EXECUTION_FAILED,
                    "CUDNN_STATUS_EXECUTION_FAILED",
                    null,
                    null,
                    "scripted");
              }
              return 20.0;
            });
    assertTrue(tuned.ok(), tuned.failure);
    assertTrue(tuned.engine.startsWith("heuristics A #2 eng42 (tuned, best of 2:"), tuned.engine);
    assertTrue(tuned.engine.contains("eng40 failed: CUDNN_STATUS_EXECUTION_FAILED"), tuned.engine);
    tuned.evict();
    assertEquals(0, api.live());
  }

  @Test
  void withoutAnyPlanTuningReportsWhyAndLeavesNothing() {
    RecordingCudnnApi api = new RecordingCudnnApi();
    api.failFinalize = f -> f.d.type() == EXECUTION_PLAN_DESCRIPTOR;
    CudnnSdpaPlan tuned =
        CudnnSdpaPlan.tuned(
            api,
            HANDLE,
            key(128, 128, CudnnSdpaKey.MaskKind.NONE),
            4,
            candidate -> {
              throw new AssertionError("nothing to time");
            });
    assertFalse(tuned.ok());
    assertTrue(tuned.failure.startsWith("no execution plan finalized"), tuned.failure);
    assertEquals(0, api.live());
  }

  @Test
  void theAutotunePropertyIsACandidateCountOrABoolean() {
    assertEquals(0, CudnnSdpaTuning.candidates(), "off by default");
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "true");
    assertEquals(CudnnSdpaTuning.DEFAULT_CANDIDATES, CudnnSdpaTuning.candidates());
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, " 4 ");
    assertEquals(4, CudnnSdpaTuning.candidates());
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "1");
    assertEquals(0, CudnnSdpaTuning.candidates(), "one candidate: nothing to choose from");
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "false");
    assertEquals(0, CudnnSdpaTuning.candidates());
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "fast");
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, CudnnSdpaTuning::candidates);
    assertTrue(e.getMessage().contains(CudnnSdpa.AUTOTUNE_PROPERTY), e.getMessage());
    System.setProperty(CudnnSdpa.AUTOTUNE_PROPERTY, "0");
    assertThrows(IllegalArgumentException.class, CudnnSdpaTuning::candidates);
  }

  @Test
  void describePlanRejectsMissingTensorsByName() {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> CudnnSdpa.describePlan(null, null, null, null, null));
    assertTrue(e.getMessage().startsWith("q, k, v and out must not be null"), e.getMessage());
  }
}
