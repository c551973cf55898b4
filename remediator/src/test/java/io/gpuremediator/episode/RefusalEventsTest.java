package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;

class RefusalEventsTest {
  private static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

  private final InMemoryCluster cluster = new InMemoryCluster(IntStream.range(0, 300)
      .mapToObj(i -> NodeInfo.named("gpu-node-" + i, Map.of())).toList());
  private final List<Runnable> scheduled = new ArrayList<>();
  private final long[] now = {0};
  private final List<Long> parks = new ArrayList<>();
  private final RefusalEvents events = new RefusalEvents(cluster, scheduled::add,
      new RefusalEvents.Pace(RefusalEvents.PER_SECOND, RefusalEvents.BURST, () -> now[0], nanos -> {
        parks.add(nanos);
        now[0] += nanos;
      }));

  private static Decision refused(int node, Reason reason) {
    return new Decision(T0, String.format("%016x", node), T0, "GpuXidHardwareError", "firing", "gpu-node-" + node,
        "gpu-hardware-xid", reason, "storm breaker open", List.of());
  }

  @Test
  void aStormsEventsAreQueuedByTheWebhookAndWrittenByOneWriterAtTheKubeletsPace() {
    IntStream.range(0, 150).forEach(i -> events.decided(refused(i, Reason.BREAKER_OPEN)));

    assertThat(cluster.events()).as("nothing written on the webhook's thread").isEmpty();
    assertThat(scheduled).as("one writer for the whole storm").hasSize(1);
    assertThat(events.waiting()).isEqualTo(150);
    scheduled.get(0).run();
    assertThat(cluster.events()).hasSize(150).extracting(NodeEvent::reason).containsOnly("RemediationSuppressed");
    assertThat(cluster.events()).extracting(NodeEvent::node).doesNotHaveDuplicates();
    assertThat(events.waiting()).isZero();
    // 100 at once, the other 50 at 50 a second.
    assertThat(now[0] / 1e9).isCloseTo(1.0, Offset.offset(0.05));
    assertThat(parks).hasSize(50);
  }

  @Test
  void aReSentRefusalIsOneEventAndAnotherReasonIsAnother() {
    events.decided(refused(1, Reason.BREAKER_OPEN));
    events.decided(refused(1, Reason.BREAKER_OPEN));
    events.decided(refused(1, Reason.PAUSED));
    events.decided(new Decision(T0, "f", T0, "GpuXidHardwareError", "firing", "gpu-node-2", "gpu-hardware-xid",
        Reason.ACTIONS_APPLIED, "", List.of()));
    scheduled.forEach(Runnable::run);
    assertThat(cluster.events()).extracting(NodeEvent::message).hasSize(2)
        .anySatisfy(m -> assertThat(m).contains("(breaker_open)")).anySatisfy(m -> assertThat(m).contains("(paused)"));
  }

  @Test
  void pastTheQueuesBoundEventsAreDroppedNotQueued() {
    IntStream.range(0, RefusalEvents.QUEUED + 5).forEach(i -> events.decided(refused(i, Reason.BREAKER_OPEN)));
    assertThat(events.waiting()).isEqualTo(RefusalEvents.QUEUED);
  }
}
