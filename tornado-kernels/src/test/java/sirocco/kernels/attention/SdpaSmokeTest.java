package sirocco.kernels.attention;

import org.junit.jupiter.api.Test;

class SdpaSmokeTest {
  @Test
  void smoke() {
    for (int d : new int[] {64, 96, 128, 256, 512}) {
      for (int splits : new int[] {1, 3}) {
        AttnCase c = new AttnCase();
        c.hq = 8;
        c.hkv = 2;
        c.lq = 1;
        c.lkv = 100;
        c.headDim = d;
        c.seed = 1;
        c.generate();
        long t = System.nanoTime();
        SdpaVector.Plan plan =
            SdpaVector.plan(c.shape(), 8, SdpaVector.defaultRows(c.shape()), 1, splits);
        float[] got = c.runVector(plan);
        System.out.printf("D=%d splits=%d %.1f ms%n", d, splits, (System.nanoTime() - t) / 1e6);
        c.check("vector", got, 1e-3, 8e-3);
        t = System.nanoTime();
        float[] u = c.runUnfused();
        System.out.printf("unfused D=%d %.1f ms%n", d, (System.nanoTime() - t) / 1e6);
        c.check("unfused", u, 1e-3, 8e-3);
      }
    }
  }
}
