package sirocco.runtime.sync;

/**
 * Child-JVM program for {@link CooperativeWaitTest}: touches the wait pool and a wait twice each
 * and prints what they threw, so the test can check a malformed setting is reported on every use
 * (not once by class initialization and then as a bare NoClassDefFoundError).
 */
public final class BadWaitSettingsMain {
  private BadWaitSettingsMain() {}

  public static void main(String[] args) {
    for (int i = 0; i < 2; i++) {
      try {
        WaitPool.shared();
        System.out.println("pool ok");
      } catch (RuntimeException | Error e) {
        System.out.println("pool " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
      try {
        CooperativeWait.await(() -> true, () -> {});
        System.out.println("wait ok");
      } catch (RuntimeException | Error e) {
        System.out.println("wait " + e.getClass().getSimpleName() + ": " + e.getMessage());
      }
    }
  }
}
