package io.gpuremediator.http;

import io.gpuremediator.episode.SparesNow;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.state.FencedGpu;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * The fleet map's JSON ({@code GET /api/v1/fleet?group_by=LABEL}): every selected node with its stage, grouped by the
 * value of a node label of the caller's choice (zone, rack, NVLink clique), so a person sees where the fleet hurts. A
 * node without an episode is {@code in_service}, or {@code not_ready} or {@code cordoned} (by someone else) when it is
 * so; one under remediation has its episode's stage, as {@code /api/v1/nodes} shows it (or {@code state_unreadable}). Read from the node cache: it
 * never takes the safety gate's lock.
 */
final class FleetJson {
  static final String IN_SERVICE = "in_service";
  static final String NOT_READY = "not_ready";
  static final String CORDONED = "cordoned";
  /** A node the hot spare pool holds out of service. */
  static final String SPARE = "spare";

  private FleetJson() {}

  /** Why {@code label} cannot group nodes, if it cannot. */
  static Optional<String> invalidLabel(String label) {
    return FieldRule.QUALIFIED_NAME.check(label).map(e -> "group_by: " + e);
  }

  static JsonObject of(List<NodeInfo> selected, Optional<String> label) {
    return of(selected, label, Optional.empty());
  }

  /** The same, the hot spare pool's nodes in stage {@code spare} and the pool itself under {@code spares}. */
  static JsonObject of(List<NodeInfo> selected, Optional<String> label, Optional<SparesNow> spares) {
    Set<String> spare = spares.map(p -> Set.copyOf(p.spares())).orElse(Set.of());
    Map<String, JsonArray> groups = new TreeMap<>();
    Map<String, Map<String, Integer>> counts = new TreeMap<>();
    Map<String, Integer> total = new TreeMap<>();
    selected.stream().sorted(Comparator.comparing(NodeInfo::name)).forEach(n -> {
      String value = label.map(l -> n.labels().getOrDefault(l, "")).orElse("");
      String stage = spare.contains(n.name()) && NodesJson.shownStage(n).isEmpty() ? SPARE : stage(n);
      JsonObject cell = new JsonObject().put("node", n.name()).put("stage", stage);
      List<String> fenced = n.ledger().episodes().values().stream().flatMap(e -> e.fenced().stream())
          .map(FencedGpu::uuid).toList();
      if (!fenced.isEmpty()) {
        cell.put("fenced_gpus", new JsonArray(fenced));
      }
      groups.computeIfAbsent(value, v -> new JsonArray()).add(cell);
      counts.computeIfAbsent(value, v -> new TreeMap<>()).merge(stage, 1, Integer::sum);
      total.merge(stage, 1, Integer::sum);
    });
    JsonArray out = new JsonArray();
    groups.forEach((value, nodes) -> out.add(new JsonObject().put("value", value)
        .put("stages", json(counts.get(value))).put("nodes", nodes)));
    JsonObject fleet = new JsonObject().put("group_by", label.orElse(null)).put("selected_nodes", selected.size())
        .put("stages", json(total)).put("groups", out);
    spares.ifPresent(p -> fleet.put("spares", new JsonObject().put("taint", p.taint()).put("count", p.count())
        .put("target", p.target()).put("out_of_service", p.out()).put("nodes", new JsonArray(p.spares()))));
    return fleet;
  }

  private static JsonObject json(Map<String, Integer> counts) {
    JsonObject o = new JsonObject();
    counts.forEach(o::put);
    return o;
  }

  private static String stage(NodeInfo n) {
    if (n.ledgerFault().isPresent()) {
      return NodesJson.faultState(n);
    }
    Optional<String> episode = NodesJson.shownStage(n);
    if (episode.isPresent()) {
      return episode.get();
    }
    return !n.isReady() ? NOT_READY : n.unschedulable() ? CORDONED : IN_SERVICE;
  }
}
