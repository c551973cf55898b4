package io.gpuremediator.http;

import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** The API's JSON form of the nodes under remediation, read from each node's ledger. */
final class NodesJson {
  static final String STATE_UNREADABLE = "state_unreadable";
  static final String LEDGER_UNTRUSTED = "ledger_untrusted";

  private NodesJson() {}

  /** The stage a node shows: a failed episode's first, else the one whose stage changed last. */
  static Optional<String> shownStage(NodeInfo n) {
    return shown(n.ledger()).map(p -> p.stage().code());
  }

  private static Optional<Progress> shown(NodeLedger ledger) {
    return ledger.episodes().values().stream().map(Episode::progress)
        .max(Comparator.comparing((Progress p) -> p.stage().isFailed()).thenComparing(Progress::stageSince));
  }

  static JsonObject of(List<NodeInfo> nodes) {
    JsonArray out = new JsonArray();
    nodes.stream().filter(n -> !n.ledger().isEmpty() || n.ledgerFault().isPresent())
        .sorted(Comparator.comparing(NodeInfo::name))
        .forEach(n -> out.add(node(n)));
    return new JsonObject().put("nodes", out);
  }

  /** Where the cursor is: the list, the 1-based index of the next step, and the long step under way. */
  private static JsonObject step(Progress p) {
    JsonObject o = new JsonObject().put("list", p.releasing() ? "on_resolved" : "actions");
    if (p.next() != Progress.DONE) {
      o.put("index", p.next() + 1);
    }
    p.task().filter(t -> !p.stage().isFailed())
        .ifPresent(t -> o.put("running", t.kind()).put("started", t.started().toString()));
    return o;
  }

  /** The GPUs fenced: each its UUID, its DRA device and the DeviceTaintRule that fences it. */
  private static JsonArray fenced(List<FencedGpu> gpus) {
    JsonArray out = new JsonArray();
    gpus.forEach(g -> out.add(new JsonObject().put("uuid", g.uuid()).put("driver", g.driver()).put("pool", g.pool())
        .put("device", g.device()).put("rule", g.rule())));
    return out;
  }

  private static JsonObject node(NodeInfo n) {
    NodeLedger ledger = n.ledger();
    JsonArray episodes = new JsonArray();
    JsonArray playbooks = new JsonArray();
    ledger.episodes().values().forEach(e -> {
      Progress p = e.progress();
      episodes.add(new JsonObject().put("fingerprint", e.fingerprint()).put("alertname", e.alertname())
          .put("playbook", e.playbook()).put("starts_at", e.startsAt().toString()).put("since", e.since().toString())
          .put("stage", p.stage().code()).put("stage_since", p.stageSince().toString()).put("resolved", p.resolved())
          .put("step", step(p)).put("progress", p.note()).put("evidence", new JsonArray(e.evidence()))
          .put("fenced_gpus", fenced(e.fenced())));
      if (!playbooks.contains(e.playbook())) {
        playbooks.add(e.playbook());
      }
    });
    JsonObject changes = new JsonObject();
    ledger.claims().forEach((key, claim) -> changes.put(key, new JsonObject()
        .put("holders", new JsonArray(List.copyOf(claim.holders()))).put("preexisting", claim.preexisting())));
    String state = n.ledgerFault().isPresent() ? faultState(n)
        : ledger.claims().isEmpty() ? "watching" : "quarantined";
    Instant since = ledger.episodes().values().stream().map(Episode::since).min(Comparator.naturalOrder())
        .orElse(null);
    Optional<Progress> shown = shown(ledger);
    return new JsonObject().put("node", n.name()).put("state", state).put("playbooks", playbooks)
        .put("stage", shown.map(p -> p.stage().code()).orElse(null))
        .put("stage_since", shown.map(p -> p.stageSince().toString()).orElse(null))
        .put("step", shown.map(NodesJson::step).orElse(null))
        .put("progress", shown.map(Progress::note).orElse(null))
        .put("evidence", new JsonArray(ledger.episodes().values().stream().flatMap(e -> e.evidence().stream()).toList()))
        .put("fenced_gpus", fenced(ledger.episodes().values().stream().flatMap(e -> e.fenced().stream()).toList()))
        .put("since", since == null ? null : since.toString()).put("unschedulable", n.unschedulable())
        .put("ready", n.isReady()).put("episodes", episodes).put("changes", changes)
        .put("error", n.ledgerFault().map(LedgerFault::message).orElse(null));
  }

  /** What a node whose ledger is not acted on shows: unreadable, or not ours. */
  static String faultState(NodeInfo n) {
    return n.ledgerFault().filter(f -> f.kind() == LedgerFault.Kind.UNREADABLE).isPresent() ? STATE_UNREADABLE
        : LEDGER_UNTRUSTED;
  }
}
