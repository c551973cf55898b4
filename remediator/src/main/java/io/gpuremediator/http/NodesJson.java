package io.gpuremediator.http;

import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.NodeLedger;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;

/** The API's JSON form of the nodes under remediation, read from each node's ledger. */
final class NodesJson {
  private NodesJson() {}

  static JsonObject of(List<NodeInfo> nodes) {
    JsonArray out = new JsonArray();
    nodes.stream().filter(n -> !n.ledger().isEmpty() || n.ledgerError().isPresent())
        .sorted(Comparator.comparing(NodeInfo::name))
        .forEach(n -> out.add(node(n)));
    return new JsonObject().put("nodes", out);
  }

  private static JsonObject node(NodeInfo n) {
    NodeLedger ledger = n.ledger();
    JsonArray episodes = new JsonArray();
    JsonArray playbooks = new JsonArray();
    ledger.episodes().values().forEach(e -> {
      episodes.add(new JsonObject().put("fingerprint", e.fingerprint()).put("alertname", e.alertname())
          .put("playbook", e.playbook()).put("starts_at", e.startsAt().toString()).put("since", e.since().toString()));
      if (!playbooks.contains(e.playbook())) {
        playbooks.add(e.playbook());
      }
    });
    JsonObject changes = new JsonObject();
    ledger.claims().forEach((key, claim) -> changes.put(key, new JsonObject()
        .put("holders", new JsonArray(List.copyOf(claim.holders()))).put("preexisting", claim.preexisting())));
    String state = n.ledgerError().isPresent() ? "state_unreadable"
        : ledger.claims().isEmpty() ? "watching" : "quarantined";
    Instant since = ledger.episodes().values().stream().map(NodeLedger.Episode::since).min(Comparator.naturalOrder())
        .orElse(null);
    return new JsonObject().put("node", n.name()).put("state", state).put("playbooks", playbooks)
        .put("since", since == null ? null : since.toString()).put("unschedulable", n.unschedulable())
        .put("ready", n.isReady()).put("episodes", episodes).put("changes", changes)
        .put("error", n.ledgerError().orElse(null));
  }
}
