package sirocco.attention;

import sirocco.Backend;

/** The fused-combine cases on the Java backend (runs everywhere). */
class FusedCombineJavaTest extends FusedCombineContract {
  @Override
  Backend backend() {
    return Backend.JAVA;
  }
}
