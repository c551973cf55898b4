package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
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
    AtomicBoolean ran = new AtomicBoolean();
    AtomicBoolean held = new AtomicBoolean();
    Thread writer = new Thread(() -> held.set(exclusion.holding("n1", Duration.ofSeconds(60), () -> ran.set(true))));
    writer.start();
    // The writer is parked in its wait for the node (not yet past it): only the holder's exit can let it on.
    await().atMost(Duration.ofSeconds(30)).until(() -> writer.getState() == Thread.State.TIMED_WAITING);
    assertThat(ran).isFalse();
    exclusion.exit("n1");
    writer.join(Duration.ofSeconds(30).toMillis());
    assertThat(writer.isAlive()).as("woken by the exit, not by its deadline").isFalse();
    assertThat(held).isTrue();
    assertThat(ran).isTrue();
    assertThat(exclusion.tryEnter("n1")).as("let go after the work").isTrue();
  }
}
