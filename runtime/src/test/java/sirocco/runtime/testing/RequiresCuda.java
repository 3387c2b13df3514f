package sirocco.runtime.testing;

import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import sirocco.runtime.Devices;

/** Disables (reports as skipped) tests that need CUDA where the driver or a device is missing. */
public final class RequiresCuda implements ExecutionCondition {
  private static volatile String reason;
  private static volatile boolean checked;

  /** Why CUDA is unusable here, or null when a device exists. Checked once per JVM. */
  public static String unavailableReason() {
    if (!checked) {
      synchronized (RequiresCuda.class) {
        if (!checked) {
          try {
            reason = Devices.cudaUnavailableReason();
          } catch (RuntimeException | LinkageError e) {
            reason = e.toString();
          }
          checked = true;
        }
      }
    }
    return reason;
  }

  @Override
  public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
    String why = unavailableReason();
    return why == null
        ? ConditionEvaluationResult.enabled("CUDA device present")
        : ConditionEvaluationResult.disabled("needs a CUDA device: " + why);
  }
}
