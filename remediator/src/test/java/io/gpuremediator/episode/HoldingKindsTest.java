package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.action.StepPorts;
import io.gpuremediator.device.Devices;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.node.InMemoryCluster;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundPorts;
import io.gpuremediator.safety.ReplaceLimit;
import io.gpuremediator.safety.StepLimits;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.NodeLedger;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A held thing is one record and one row: a kind that exists only in this test is held by two episodes (a hand-over is
 * an added holder), kept while either holds it, and given back by the one give-back loop once neither does.
 */
class HoldingKindsTest {
  private static final Instant T = Instant.parse("2026-12-02T10:00:00Z");
  private static final String NODE = "gpu-node-1";

  /** The test's own held thing: a lease on a rack's switch port, say. */
  record PortLease(String port) {
    static final String KIND = "port_lease";

    Held held() {
      return new Held(KIND, port, "");
    }
  }

  @Test
  void aTestOnlyKindIsHeldWhileAnyHolderLastsAndGivenBackOnceByItsRow() throws Exception {
    List<String> givenBack = new ArrayList<>();
    List<String> tried = new ArrayList<>();
    HoldingKind leases = new HoldingKind() {
      @Override
      public String kind() {
        return PortLease.KIND;
      }

      @Override
      public String giveBack(String node, Held held) throws TryLater {
        tried.add(held.name());
        if (held.name().equals("port-9") && tried.stream().filter("port-9"::equals).count() == 1) {
          throw new TryLater("the switch did not answer");
        }
        givenBack.add(node + "/" + held.name());
        return "lease on " + held.name() + " ended";
      }
    };
    Episode first = new Episode("fp1", "A", "p", T, T).withHeld("p/actions/0", new PortLease("port-7").held());
    Episode second = new Episode("fp2", "A", "p", T, T).handedOver(first, PortLease.KIND)
        .withHeld("p/actions/0", new PortLease("port-9").held());
    NodeLedger ledger = NodeLedger.EMPTY.withEpisode(first).withEpisode(second)
        .withEpisode(new Episode("fp3", "A", "p", T, T).withHeld("p/actions/1", new Held("newer_kind", "x", "")));
    assertThat(ledger.holdings().get("port_lease/port-7").holders())
        .containsExactly(Map.entry("fp1", "p/actions/0"), Map.entry("fp2", Episode.HANDED_OVER + "p/actions/0"));

    NodeLedger firstEnded = ledger.released("fp1", T);
    assertThat(firstEnded.unheld()).as("fp2 still holds it").isEmpty();
    InMemoryCluster cluster = new InMemoryCluster(List.of(withLedger(NodeInfo.named(NODE, Map.of()),
        firstEnded.released("fp2", T).released("fp3", T))));
    GiveBacks loop = new GiveBacks(HoldingKinds.of(ports(cluster), List.of(leases)),
        new EpisodeWriter(cluster, () -> true, Clock.fixed(T, ZoneOffset.UTC)));
    assertThat(node(cluster).ledger().unheld()).extracting(Held::key)
        .containsExactly("newer_kind/x", "port_lease/port-7", "port_lease/port-9");
    assertThat(loop.due(node(cluster), T)).isTrue();

    loop.giveBack(node(cluster));
    assertThat(givenBack).containsExactly(NODE + "/port-7");
    assertThat(node(cluster).ledger().unheld()).extracting(Held::key).as("one to try again, one no row knows")
        .containsExactly("newer_kind/x", "port_lease/port-9");
    assertThat(loop.due(node(cluster), T)).as("the retry waits for its backoff").isFalse();

    loop.giveBack(node(cluster)); // a look within the backoff asks nothing
    assertThat(tried).containsExactly("port-7", "port-9");
    GiveBacks later = new GiveBacks(HoldingKinds.of(ports(cluster), List.of(leases)),
        new EpisodeWriter(cluster, () -> true, Clock.fixed(T.plus(Duration.ofMinutes(10)), ZoneOffset.UTC)));
    later.giveBack(node(cluster));
    assertThat(givenBack).containsExactly(NODE + "/port-7", NODE + "/port-9");
    assertThat(node(cluster).ledger().unheld()).extracting(Held::key).as("a newer release's kind is left as it is")
        .containsExactly("newer_kind/x");
    assertThat(later.due(node(cluster), T)).isFalse();
  }

  @Test
  void aRowForAKindTwiceIsRefused() {
    HoldingKind again = new HoldingKind() {
      @Override
      public String kind() {
        return "silence";
      }

      @Override
      public String giveBack(String node, Held held) {
        return "";
      }
    };
    assertThatThrownBy(() -> HoldingKinds.of(ports(new InMemoryCluster(List.of())),
        List.of(again))).hasMessage("two rows give back holdings of kind silence");
  }

  private static NodeInfo node(InMemoryCluster cluster) {
    return cluster.node(NODE).orElseThrow();
  }

  private static StepPorts ports(InMemoryCluster cluster) {
    return new StepPorts(cluster, new InMemoryWorkloads(), Devices.NONE, OutboundPorts.NONE,
        StepLimits.onlyReplacing(ReplaceLimit.NONE), Duration.ofSeconds(5), "gpu-remediator",
        Set.of(), DraScope.DEFAULT);
  }

  private static NodeInfo withLedger(NodeInfo n, NodeLedger ledger) {
    return new NodeInfo(n.name(), n.labels(), n.annotations(), n.taints(), n.unschedulable(), n.conditions(),
        n.internalIps(), n.bootId(), n.resourceVersion(), ledger, Optional.empty());
  }
}
