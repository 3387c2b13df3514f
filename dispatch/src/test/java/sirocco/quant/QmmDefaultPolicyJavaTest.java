package sirocco.quant;

import sirocco.Backend;

/** The default-policy quantized-matmul cases on the Java backend (reduced sizes). */
class QmmDefaultPolicyJavaTest extends QmmDefaultPolicyContract {
  @Override
  protected Backend backend() {
    return Backend.JAVA;
  }
}
