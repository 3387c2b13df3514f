package sirocco.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/**
 * The reference figures by row count, including rows that have none (the H200 run hit an
 * NPE there).
 */
class QmmBenchReferencesTest {
  @Test
  void rowsWithoutAReferenceGetNoneInsteadOfFailing() {
    assertNull(QmmBench.cublas(3));
    assertNull(QmmBench.cublas(64));
    assertEquals(28.1, QmmBench.cublas(4));
    assertEquals(41.2, QmmBench.cublas(256));
    assertEquals(9.0, QmmBench.target(1));
    assertNull(QmmBench.TINYGEMM.get(3));
  }
}
