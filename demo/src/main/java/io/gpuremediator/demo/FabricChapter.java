package io.gpuremediator.demo;

import com.fasterxml.jackson.databind.JsonNode;
import io.gpuremediator.demo.Milestones.Milestone;
import io.gpuremediator.pipeline.Pipeline;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * A fabric fault on three nodes of one NVLink clique (one rack's trays): injected with chapter 1's faults, so that its
 * alert's `for: 2m` passes while the story goes on, and seen before the storm. The remediator's config
 * ({@code Options.demo}) gives the clique an incident threshold of 2: the three faulting together are one incident, paged
 * once to the on-call, and no node of the clique is reset or rebooted (the gpu-fabric playbook has no such step, and
 * the incident stops new episodes in the clique).
 */
final class FabricChapter {
  static final String CLIQUE = "nvidia.com/gpu.clique";
  static final String RACK = "rack-7";
  private static final String ALERT = "GpuFabricDegraded";
  /** The alert's `for: 2m` after its first evaluation, and the webhook after it. */
  private static final Duration TIMEOUT = Duration.ofMinutes(4);
  private static final Set<String> DECIDING = Set.of("actions_applied", "domain_incident", "max_unavailable", "breaker_open");

  /** What the chapter saw: each tray's decision, whether the incident opened, the pages about it, any repair asked. */
  record Seen(Map<String, String> decisions, boolean incident, int pages, boolean repaired) {}

  private final Pipeline p;
  private final Timeline t;
  private final Observe see;
  private final List<String> trays;
  private final Milestones.Reached report;
  private long injectedAt;

  FabricChapter(Pipeline p, Timeline t, Observe see, List<String> trays, Milestones.Reached report) {
    this.p = p;
    this.t = t;
    this.see = see;
    this.trays = List.copyOf(trays);
    this.report = report;
  }

  /** Labels the trays as one clique and fails their fabric (the route unhealthy on every GPU). */
  void inject() throws IOException, InterruptedException {
    for (String tray : trays) {
      p.kube().nodes().withName(tray).edit(n -> {
        n.getMetadata().getLabels().put(CLIQUE, RACK);
        return n;
      });
    }
    injectedAt = System.nanoTime();
    for (String tray : trays) {
      p.simulator().inject(tray, null, "fabric", "route_unhealthy");
    }
    t.at("fault", "the NVLink fabric of " + String.join(", ", trays) + " (NVLink clique " + RACK + ") reports its route"
        + " unhealthy on every GPU (simulator: fabric); " + ALERT + " fires after `for: 2m`, seen in chapter 8b");
  }

  Seen play() throws Exception {
    t.chapter("8b. The fabric fault on " + String.join(", ", trays) + " (clique " + RACK + "), since chapter 1");
    Map<String, String> decided = new TreeMap<>();
    Milestones.await(injectedAt, TIMEOUT, List.of(
        new Milestone("alert", () -> see.prometheusAlert(ALERT, trays.get(0), "firing").map(a -> ALERT + " firing on "
            + trays.get(0) + ": " + a.path("labels").path("fault").asText()),
            () -> see.prometheusWhy(ALERT, trays.get(0), List.of("gpu:dcgm_fabric_health_mask:max"))),
        new Milestone("safety", this::incident),
        new Milestone("decide", () -> decided(decided), () -> String.valueOf(decided)),
        new Milestone("page", () -> pages().stream().findFirst().map(m -> "gpu-oncall paged: \"" + m + "\""),
            () -> "gpu-oncall received " + p.notifications())), report, () -> { });
    boolean repaired = false;
    for (String tray : trays) {
      repaired |= see.decisions(tray).stream().anyMatch(d -> d.path("reason").asText().equals("repair_started"));
    }
    t.at("node", "one incident, " + pages().size() + " page; no tray of " + RACK + " reset or rebooted"
        + (repaired ? " - BUT ONE WAS" : "") + "; no new episode in it until someone resets the incident:"
        + " POST /api/v1/safety/domains/" + CLIQUE + "/" + RACK + "/reset");
    return new Seen(decided, incident().isPresent(), pages().size(), repaired);
  }

  private Optional<String> incident() throws IOException, InterruptedException {
    for (JsonNode i : see.safety().path("incidents")) {
      if (i.path("value").asText().equals(RACK)) {
        return Optional.of("incident in " + CLIQUE + "=" + RACK + ": " + i.path("reason").asText());
      }
    }
    return Optional.empty();
  }

  /**
   * Each tray's deciding decision about the fabric alert (acted on, or refused for the incident; Alertmanager's re-sends
   * are duplicates of it), once every tray has one.
   */
  private Optional<String> decided(Map<String, String> into) throws IOException, InterruptedException {
    for (String tray : trays) {
      if (into.containsKey(tray)) {
        continue; // seen at an earlier look
      }
      see.decisions(tray).stream().filter(x -> x.path("alertname").asText().equals(ALERT)
          && DECIDING.contains(x.path("reason").asText())).findFirst()
          .ifPresent(d -> into.put(tray, d.path("outcome").asText() + "/" + d.path("reason").asText()));
    }
    return into.size() == trays.size() ? Optional.of("remediator: " + into) : Optional.empty();
  }

  private List<String> pages() {
    return p.notifications().stream().filter(m -> m.startsWith("domain incident in " + CLIQUE + "=" + RACK)).toList();
  }
}
