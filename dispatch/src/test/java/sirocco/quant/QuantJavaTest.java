package sirocco.quant;

import sirocco.Backend;

/** The quantized-matmul cases on the Java backend (the reference backend; runs everywhere). */
class QuantJavaTest extends QuantContract {
  @Override
  protected Backend backend() {
    return Backend.JAVA;
  }
}
