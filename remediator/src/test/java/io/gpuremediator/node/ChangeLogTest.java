package io.gpuremediator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A count over the fleet learns which nodes changed since it last counted, or that it must count them all. */
class ChangeLogTest {
  @Test
  void theNodesChangedBetweenTwoGenerationsComeInOrder() {
    ChangeLog log = new ChangeLog(8);
    log.changed("a");
    long seen = log.generation();
    log.changed("b");
    log.changed("a");
    assertThat(log.between(seen, log.generation())).contains(List.of("b", "a"));
    assertThat(log.between(log.generation(), log.generation())).contains(List.of());
  }

  @Test
  void aCountFurtherBehindThanTheLogMustCountEveryNode() {
    ChangeLog log = new ChangeLog(2);
    log.changed("a");
    log.changed("b");
    log.changed("c");
    assertThat(log.between(0, log.generation())).isEmpty();
    assertThat(log.between(1, log.generation())).contains(List.of("b", "c"));
  }

  @Test
  void aGenerationTheLogNeverHadIsNotAnswered() {
    ChangeLog log = new ChangeLog(8);
    log.changed("a");
    assertThat(log.between(0, 2)).isEmpty();
    assertThat(log.between(1, 0)).isEmpty();
    assertThat(log.between(-1, 1)).isEmpty();
  }
}
