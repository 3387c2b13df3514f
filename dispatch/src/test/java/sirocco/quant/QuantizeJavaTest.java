package sirocco.quant;

import sirocco.Backend;

/** quantize/dequantize on the Java backend. */
class QuantizeJavaTest extends QuantizeContract {
  @Override
  protected Backend backend() {
    return Backend.JAVA;
  }
}
