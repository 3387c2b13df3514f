package sirocco.bench;

import java.util.Locale;
import sirocco.Sirocco;
import sirocco.Tensor;

/**
 * Checks a benchmark's attention output against float64 attention written from the math, on sampled
 * heads and query rows (first, middle, last), so that a benchmark never reports a time for wrong
 * results.
 */
final class AttentionCheck {
  private AttentionCheck() {}

  /** "ok (max abs err …)" or "FAILED (…)" for bf16 tolerances (atol = rtol = 2e-2). */
  static String check(
      Sirocco rt, Tensor q, Tensor k, Tensor v, float scale, boolean causal, Tensor out) {
    int hq = (int) q.shape(1);
    int lq = (int) q.shape(2);
    int d = (int) q.shape(3);
    int hkv = (int) k.shape(1);
    int lkv = (int) k.shape(2);
    int dv = (int) v.shape(3);
    float[] o = rt.toFloats(out);
    double worst = 0;
    int bad = 0;
    for (int h : new int[] {0, hq / 2, hq - 1}) {
      int kvh = h / (hq / hkv);
      float[] qh = rt.toFloats(q.slice(1, h, h + 1));
      float[] kh = rt.toFloats(k.slice(1, kvh, kvh + 1));
      float[] vh = rt.toFloats(v.slice(1, kvh, kvh + 1));
      for (int i : new int[] {0, lq / 2, lq - 1}) {
        int visible = causal ? Math.min(lkv, i + lkv - lq + 1) : lkv;
        double[] s = new double[Math.max(0, visible)];
        double max = Double.NEGATIVE_INFINITY;
        for (int j = 0; j < visible; j++) {
          double dot = 0;
          for (int x = 0; x < d; x++) {
            dot += (double) qh[i * d + x] * kh[j * d + x];
          }
          s[j] = dot * scale;
          max = Math.max(max, s[j]);
        }
        double sum = 0;
        for (int j = 0; j < visible; j++) {
          s[j] = Math.exp(s[j] - max);
          sum += s[j];
        }
        for (int x = 0; x < dv; x++) {
          double ref = 0;
          for (int j = 0; j < visible; j++) {
            ref += s[j] * vh[j * dv + x];
          }
          ref = visible == 0 ? 0 : ref / sum;
          double got = o[(h * lq + i) * dv + x];
          double err = Math.abs(got - ref);
          if (!(err <= 2e-2 + 2e-2 * Math.abs(ref))) {
            bad++;
          }
          worst = Double.isNaN(got) ? Double.POSITIVE_INFINITY : Math.max(worst, err);
        }
      }
    }
    return String.format(
        Locale.ROOT,
        bad == 0 ? "ok (max abs err %.1e)" : "FAILED (%d bad, max abs err %.1e)",
        bad == 0 ? new Object[] {worst} : new Object[] {bad, worst});
  }
}
