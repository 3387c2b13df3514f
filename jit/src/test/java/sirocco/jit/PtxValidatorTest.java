package sirocco.jit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The in-process PTX compiler wrapper reports resources and rejects bad PTX with its log. */
class PtxValidatorTest {
  private static final String GOOD =
      """
      .version 8.0
      .target sm_90
      .address_size 64
      .visible .entry k(.param .u64 p)
      {
        .reg .b64 %rd<3>;
        .reg .b32 %r<2>;
        .shared .align 16 .b8 s[512];
        ld.param.u64 %rd1, [p];
        cvta.to.global.u64 %rd2, %rd1;
        mov.u32 %r1, %tid.x;
        st.shared.u32 [s], %r1;
        bar.sync 0;
        ld.shared.u32 %r1, [s+4];
        st.global.u32 [%rd2], %r1;
        ret;
      }
      """;

  @Test
  void reportsResources() {
    assertTrue(PtxValidator.isAvailable());
    assertEquals("12.0", PtxValidator.compilerVersion());
    PtxResources r = PtxValidator.validate(GOOD, "sm_90");
    assertTrue(r.registers() > 0, r.log());
    assertEquals(512, r.sharedBytes(), r.log());
    assertEquals(0, r.spillStoreBytes());
    assertTrue(r.log().contains("Compiling entry function 'k' for 'sm_90'"), r.log());
  }

  @Test
  void rejectsBadPtxWithTheErrorLog() {
    String bad = GOOD.replace("st.global.u32 [%rd2], %r1;", "st.global.u32 [%rd2], %r7;");
    PtxCompilationException e =
        assertThrows(PtxCompilationException.class, () -> PtxValidator.validate(bad, "sm_90"));
    assertTrue(e.errorLog().contains("%r7"), e.errorLog());
    assertTrue(e.getMessage().contains("ptxas rejected the PTX for sm_90"), e.getMessage());
  }

  @Test
  void rejectsAnIsaNewerThanTheBundledCompiler() {
    // JCuda 12.6.0 bundles nvPTXCompiler 12.0: ISA 8.0 at most.
    String newer = GOOD.replace(".version 8.0", ".version 8.5");
    PtxCompilationException e =
        assertThrows(PtxCompilationException.class, () -> PtxValidator.validate(newer, "sm_90"));
    assertTrue(e.getMessage().contains("8.5"), e.getMessage());
  }
}
