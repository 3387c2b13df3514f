package sirocco.attention;

import sirocco.Backend;

/** The attention cases on the Java backend (the reference backend; runs everywhere). */
class AttentionJavaTest extends AttentionContract {
  @Override
  Backend backend() {
    return Backend.JAVA;
  }
}
