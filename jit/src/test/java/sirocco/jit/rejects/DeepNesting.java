package sirocco.jit.rejects;

import sirocco.api.KernelContext;

/**
 * Helper nesting at the inliner's limit: calls in a kernel are at depth 0, calls in a helper it
 * inlines at depth 1, and so on; a call at depth 64 is rejected. {@code tooDeep} enters at h0, so
 * h63's call to h64 is at depth 64 (65 nested helpers); {@code deepest} enters at h1 and stays
 * within the limit (64 nested helpers). Not for running.
 */
public final class DeepNesting {
  private DeepNesting() {}

  public static void tooDeep(KernelContext ctx, int[] out) {
    out[0] = h0(out[1]);
  }

  public static void deepest(KernelContext ctx, int[] out) {
    out[0] = h1(out[1]);
  }

  private static int h0(int x) {
    return h1(x) + 1;
  }

  private static int h1(int x) {
    return h2(x) + 1;
  }

  private static int h2(int x) {
    return h3(x) + 1;
  }

  private static int h3(int x) {
    return h4(x) + 1;
  }

  private static int h4(int x) {
    return h5(x) + 1;
  }

  private static int h5(int x) {
    return h6(x) + 1;
  }

  private static int h6(int x) {
    return h7(x) + 1;
  }

  private static int h7(int x) {
    return h8(x) + 1;
  }

  private static int h8(int x) {
    return h9(x) + 1;
  }

  private static int h9(int x) {
    return h10(x) + 1;
  }

  private static int h10(int x) {
    return h11(x) + 1;
  }

  private static int h11(int x) {
    return h12(x) + 1;
  }

  private static int h12(int x) {
    return h13(x) + 1;
  }

  private static int h13(int x) {
    return h14(x) + 1;
  }

  private static int h14(int x) {
    return h15(x) + 1;
  }

  private static int h15(int x) {
    return h16(x) + 1;
  }

  private static int h16(int x) {
    return h17(x) + 1;
  }

  private static int h17(int x) {
    return h18(x) + 1;
  }

  private static int h18(int x) {
    return h19(x) + 1;
  }

  private static int h19(int x) {
    return h20(x) + 1;
  }

  private static int h20(int x) {
    return h21(x) + 1;
  }

  private static int h21(int x) {
    return h22(x) + 1;
  }

  private static int h22(int x) {
    return h23(x) + 1;
  }

  private static int h23(int x) {
    return h24(x) + 1;
  }

  private static int h24(int x) {
    return h25(x) + 1;
  }

  private static int h25(int x) {
    return h26(x) + 1;
  }

  private static int h26(int x) {
    return h27(x) + 1;
  }

  private static int h27(int x) {
    return h28(x) + 1;
  }

  private static int h28(int x) {
    return h29(x) + 1;
  }

  private static int h29(int x) {
    return h30(x) + 1;
  }

  private static int h30(int x) {
    return h31(x) + 1;
  }

  private static int h31(int x) {
    return h32(x) + 1;
  }

  private static int h32(int x) {
    return h33(x) + 1;
  }

  private static int h33(int x) {
    return h34(x) + 1;
  }

  private static int h34(int x) {
    return h35(x) + 1;
  }

  private static int h35(int x) {
    return h36(x) + 1;
  }

  private static int h36(int x) {
    return h37(x) + 1;
  }

  private static int h37(int x) {
    return h38(x) + 1;
  }

  private static int h38(int x) {
    return h39(x) + 1;
  }

  private static int h39(int x) {
    return h40(x) + 1;
  }

  private static int h40(int x) {
    return h41(x) + 1;
  }

  private static int h41(int x) {
    return h42(x) + 1;
  }

  private static int h42(int x) {
    return h43(x) + 1;
  }

  private static int h43(int x) {
    return h44(x) + 1;
  }

  private static int h44(int x) {
    return h45(x) + 1;
  }

  private static int h45(int x) {
    return h46(x) + 1;
  }

  private static int h46(int x) {
    return h47(x) + 1;
  }

  private static int h47(int x) {
    return h48(x) + 1;
  }

  private static int h48(int x) {
    return h49(x) + 1;
  }

  private static int h49(int x) {
    return h50(x) + 1;
  }

  private static int h50(int x) {
    return h51(x) + 1;
  }

  private static int h51(int x) {
    return h52(x) + 1;
  }

  private static int h52(int x) {
    return h53(x) + 1;
  }

  private static int h53(int x) {
    return h54(x) + 1;
  }

  private static int h54(int x) {
    return h55(x) + 1;
  }

  private static int h55(int x) {
    return h56(x) + 1;
  }

  private static int h56(int x) {
    return h57(x) + 1;
  }

  private static int h57(int x) {
    return h58(x) + 1;
  }

  private static int h58(int x) {
    return h59(x) + 1;
  }

  private static int h59(int x) {
    return h60(x) + 1;
  }

  private static int h60(int x) {
    return h61(x) + 1;
  }

  private static int h61(int x) {
    return h62(x) + 1;
  }

  private static int h62(int x) {
    return h63(x) + 1;
  }

  private static int h63(int x) {
    return h64(x) + 1; // reject: tooDeep
  }

  private static int h64(int x) {
    return x;
  }
}
