package io.gpuremediator.bounded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BoundedMapTest {

  @Test
  void leastRecentlyUsedDropsTheEntryReadLongestAgo() {
    Map<String, Integer> m = BoundedMap.leastRecentlyUsed(2);
    m.put("a", 1);
    m.put("b", 2);
    m.get("a");
    m.put("c", 3);
    assertThat(m).containsOnlyKeys("a", "c");
  }

  @Test
  void firstInFirstOutDropsTheEntryPutFirstWhateverWasRead() {
    Map<String, Integer> m = BoundedMap.firstInFirstOut(2);
    m.put("a", 1);
    m.put("b", 2);
    m.get("a");
    m.put("c", 3);
    assertThat(m).containsOnlyKeys("b", "c");
  }

  @Test
  void aMapOfNothingIsRefused() {
    assertThatThrownBy(() -> BoundedMap.leastRecentlyUsed(0)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("a bounded map holds at least one entry, not 0");
  }
}
