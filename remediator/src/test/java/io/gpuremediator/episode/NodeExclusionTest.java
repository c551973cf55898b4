package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** One node is changed by one thread at a time; a look asked for meanwhile runs once, after the holder. */
class NodeExclusionTest {
  @Test
  void aLookAskedForWhileTheNodeIsHeldRunsOnceAfterTheHolderLetsGo() {
    List<String> again = new ArrayList<>();
    NodeExclusion exclusion = new NodeExclusion(again::add);
    assertThat(exclusion.tryEnter("n1")).isTrue();
    assertThat(exclusion.tryEnter("n1")).isFalse();
    assertThat(exclusion.tryEnter("n1")).isFalse();
    assertThat(exclusion.tryEnter("n2")).as("no node waits for another").isTrue();
    assertThat(again).isEmpty();
    exclusion.exit("n1");
    assertThat(again).containsExactly("n1");
    exclusion.exit("n2");
    assertThat(again).containsExactly("n1");
  }

  @Test
  void aWriterWaitsForTheHolderAndGivesUpAtItsDeadline() throws Exception {
    NodeExclusion exclusion = new NodeExclusion(node -> { });
    assertThat(exclusion.tryEnter("n1")).isTrue();
    assertThat(exclusion.holding("n1", Duration.ofMillis(50), () -> { })).as("still held at the deadline").isFalse();
    CountDownLatch waiting = new CountDownLatch(1);
    CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
      waiting.countDown();
      return exclusion.holding("n1", Duration.ofSeconds(30), () -> { });
    });
    assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
    exclusion.exit("n1");
    assertThat(writer.get(30, TimeUnit.SECONDS)).isTrue();
    assertThat(exclusion.tryEnter("n1")).as("let go after the work").isTrue();
  }
}
