package sirocco.kernels.quant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The reduction entries of {@link QmmMmaReduce} against the m16n8 C-fragment layout written from
 * the PTX definition: lane l = 4g + t holds (mma row g, columns 2t, 2t+1) in elements 0, 1 and (row
 * g + 8, the same columns) in 2, 3; mma rows are a tile's 16 features, columns its 8 x rows; a warp
 * stores lane l's four floats at {@code ut·128 + 4l} of its tiles.
 */
class QmmMmaReduceTest {
  /** Slab offset (in warp 0's tiles) of (tile ut, feature i, row r) by the fragment definition. */
  private static int fragmentSlot(int ut, int i, int r) {
    int lane = 4 * (i % 8) + r / 2;
    int element = (i / 8) * 2 + r % 2;
    return ut * 128 + 4 * lane + element;
  }

  @Test
  void entriesCoverEachTileOnceAtTheFragmentSlots() {
    for (int mt = 1; mt <= 2; mt++) {
      for (int rt = 1; rt <= 2; rt++) {
        int tile = mt * rt * 128;
        boolean[] seen = new boolean[tile];
        for (int e = 0; e < tile; e++) {
          int ut = e / 128;
          int u = ut / rt; // feature tile
          int v = ut % rt; // row tile
          int row = QmmMmaReduce.entryRow(e, rt);
          int feature = QmmMmaReduce.entryFeature(e, rt);
          assertEquals(v, row / 8, "row tile of entry " + e);
          assertEquals(u, feature / 16, "feature tile of entry " + e);
          int slot = QmmMmaReduce.entrySlot(e, rt);
          assertEquals(fragmentSlot(ut, feature % 16, row % 8), slot, "slot of entry " + e);
          assertFalse(seen[slot], "slot " + slot + " taken twice");
          seen[slot] = true;
        }
      }
    }
  }

  @Test
  void consecutiveEntriesAreConsecutiveRows() {
    // A warp of reducers stores 8 rows of 4 features: entries 8j..8j+7 share a feature.
    for (int e = 0; e < 256; e += 8) {
      for (int d = 0; d < 8; d++) {
        assertEquals(d, QmmMmaReduce.entryRow(e + d, 1) % 8);
        assertEquals(QmmMmaReduce.entryFeature(e, 1), QmmMmaReduce.entryFeature(e + d, 1));
      }
    }
  }

  @Test
  void ownSlotSkipsThreadsPastTheTileOrTheRows() {
    // rt = 1: 128 entries; rows mBase + (e & 7).
    assertEquals(QmmMmaReduce.entrySlot(5, 1), QmmMmaReduce.ownSlot(5, 1, 0, 8));
    assertEquals(-1, QmmMmaReduce.ownSlot(128, 1, 0, 8), "past the tile");
    assertEquals(-1, QmmMmaReduce.ownSlot(5, 1, 0, 5), "row 5 of 5 rows");
    assertTrue(QmmMmaReduce.ownSlot(4, 1, 0, 5) >= 0, "row 4 of 5 rows");
    assertEquals(-1, QmmMmaReduce.ownSlot(3, 1, 16, 19), "row 19 of 19");
    assertTrue(QmmMmaReduce.ownSlot(255, 2, 0, 16) >= 0, "rt = 2: row 15 of 16 rows");
    assertEquals(-1, QmmMmaReduce.ownSlot(255, 2, 0, 15), "rt = 2: row 15 of 15 rows");
    assertEquals(-1, QmmMmaReduce.ownSlot(256, 2, 0, 16), "rt = 2: past the tile");
  }
}
