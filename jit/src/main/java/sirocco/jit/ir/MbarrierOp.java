package sirocco.jit.ir;

/** A transaction-barrier operation ({@code sirocco.api.Mbarrier}); aux of {@link Op#MBARRIER}. */
public enum MbarrierOp {
  /** {@code mbarrier.init.shared::cta.b64 [bar], count}; args = [bars, index, count]. */
  INIT("init"),
  /** {@code mbarrier.arrive.shared::cta.b64 _, [bar]}; args = [bars, index]. */
  ARRIVE("arrive"),
  /**
   * {@code mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], bytes}; args = [bars, index, bytes].
   */
  ARRIVE_EXPECT_TX("arriveExpectTx"),
  /** A loop on {@code mbarrier.try_wait.parity.shared::cta.b64}; args = [bars, index, parity]. */
  WAIT_PARITY("waitParity");

  /** The {@code Mbarrier} method's name. */
  public final String method;

  MbarrierOp(String method) {
    this.method = method;
  }

  /** The operation of {@code Mbarrier.<method>}, or null. */
  public static MbarrierOp of(String method) {
    for (MbarrierOp o : values()) {
      if (o.method.equals(method)) {
        return o;
      }
    }
    return null;
  }
}
