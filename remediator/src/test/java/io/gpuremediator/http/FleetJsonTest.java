package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** GET /api/v1/fleet groups every selected node by a label's value and names each node's stage. */
class FleetJsonTest {
  private static final Instant T = Instant.parse("2026-11-22T10:01:00Z");
  private static final String ZONE = "topology.kubernetes.io/zone";

  private static NodeInfo node(String name, String zone, boolean ready, boolean unschedulable, NodeLedger ledger) {
    Map<String, String> labels = zone == null ? Map.of() : Map.of(ZONE, zone);
    return new NodeInfo(name, labels, Map.of(), List.of(), unschedulable,
        List.of(new NodeCondition("Ready", ready ? "True" : "False", "KubeletReady", "", null, null)), List.of(), "", "1",
        ledger, Optional.empty());
  }

  private static NodeLedger draining() {
    Progress p = new Progress(Stage.DRAINING, T, false, false, 2, Optional.empty(), "");
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-hardware-xid", T, T, p, Map.of(), Map.of());
    return NodeLedger.of(Map.of(), Map.of("fp1", e), List.of());
  }

  @Test
  void nodesAreGroupedByTheLabelsValueEachWithItsStage() {
    NodeLedger none = NodeLedger.of(Map.of(), Map.of(), List.of());
    JsonObject fleet = FleetJson.of(List.of(node("b-1", "zone-b", true, false, none), node("a-2", "zone-a", true, true, none),
        node("a-1", "zone-a", true, true, draining()), node("x-1", null, false, false, none)), Optional.of(ZONE));
    assertThat(fleet.getString("group_by")).isEqualTo(ZONE);
    assertThat(fleet.getInteger("selected_nodes")).isEqualTo(4);
    JsonArray groups = fleet.getJsonArray("groups");
    assertThat(groups.stream().map(g -> ((JsonObject) g).getString("value"))).as("the unlabelled first, then by value")
        .containsExactly("", "zone-a", "zone-b");
    JsonObject a = groups.getJsonObject(1);
    assertThat(a.getJsonArray("nodes").encode()).isEqualTo(
        "[{\"node\":\"a-1\",\"stage\":\"draining\"},{\"node\":\"a-2\",\"stage\":\"cordoned\"}]");
    assertThat(groups.getJsonObject(0).getJsonArray("nodes").getJsonObject(0).getString("stage")).isEqualTo("not_ready");
    assertThat(fleet.getJsonObject("stages").getMap()).containsExactlyInAnyOrderEntriesOf(
        Map.of("draining", 1, "cordoned", 1, "in_service", 1, "not_ready", 1));
  }

  @Test
  void withoutALabelEveryNodeIsInOneGroupAndABadLabelIsNamed() {
    NodeLedger none = NodeLedger.of(Map.of(), Map.of(), List.of());
    JsonObject fleet = FleetJson.of(List.of(node("n-1", "zone-a", true, false, none)), Optional.empty());
    assertThat(fleet.getJsonArray("groups")).hasSize(1);
    assertThat(FleetJson.invalidLabel("not a label")).hasValueSatisfying(e -> assertThat(e).startsWith("group_by: "));
    assertThat(FleetJson.invalidLabel("nvidia.com/gpu.clique")).isEmpty();
  }
}
