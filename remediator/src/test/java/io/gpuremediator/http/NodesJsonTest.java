package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Claim;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** GET /api/v1/nodes shows each episode's stage, since when, the step and its progress. */
class NodesJsonTest {
  private static final Instant T = Instant.parse("2026-11-22T10:01:00Z");

  @Test
  void aDrainingNodeShowsItsStageStepAndProgress() {
    Progress p = new Progress(Stage.DRAINING, T.plusSeconds(30), false, false, 4,
        Optional.of(new Progress.Task("drain", 4, T.plusSeconds(30), 1, "", Optional.empty())),
        "3 pods left to move (8 evicted now, 0 terminating); waiting on PDB ml-training/llm-pdb");
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-hardware-xid", T.minusSeconds(60), T, p, Map.of(), Map.of());
    NodeLedger ledger = NodeLedger.of(Map.of("cordon", new Claim(new TreeSet<>(List.of("fp1")), false)),
        Map.of("fp1", e), List.of());
    NodeInfo n = new NodeInfo("gpu-node-3", Map.of(), Map.of(), List.of(), true,
        List.of(new NodeCondition("Ready", "True", "KubeletReady", "", null, null)), List.of(), "", "7", ledger, Optional.empty());
    JsonObject node = NodesJson.of(List.of(n)).getJsonArray("nodes").getJsonObject(0);
    assertThat(node.getString("stage")).isEqualTo("draining");
    assertThat(node.getString("stage_since")).isEqualTo("2026-11-22T10:01:30Z");
    assertThat(node.getString("progress")).contains("waiting on PDB ml-training/llm-pdb");
    assertThat(node.getJsonObject("step").getMap()).containsEntry("list", "actions").containsEntry("index", 5)
        .containsEntry("running", "drain");
    assertThat(node.getJsonArray("episodes").getJsonObject(0).getString("stage")).isEqualTo("draining");
  }
}
