package io.gpuremediator.maintenance;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.outbound.ProviderId;
import io.gpuremediator.outbound.ScheduledEvent;
import io.gpuremediator.outbound.ScheduledEvents;
import io.gpuremediator.state.Episode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Supplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Each look reads the region's scheduled events and, for a selected node whose instance has one pending, fires
 * {@value #ALERTNAME} once the event is {@code lead} from its earliest start (labels: node, event_code, event_id,
 * not_before, instance; severity critical, remediate "true"), started at that time exactly: the same event is the same
 * episode however often it is fired, across restarts and failovers. An episode of the alert whose event is no longer
 * pending (completed, cancelled, its window past, or no longer described) is resolved from the episode itself, so a
 * restart loses nothing; a node whose instance is not known yet is concluded nothing about. An event whose window is already past, or that EC2 says is over, fires nothing. A look whose
 * read failed concludes nothing: nothing fires, nothing resolves. Which instance a node is comes from its
 * {@code spec.providerID}, read once per node (it never changes; a node without one again an hour later) and at most
 * {@value #IDENTITIES_A_LOOK} a look.
 */
public final class MaintenanceWatch {
  /** The alert's name. */
  public static final String ALERTNAME = "CloudMaintenanceScheduled";
  private static final Logger LOGGER = LoggerFactory.getLogger(MaintenanceWatch.class);
  /** The most providerIDs one look reads: a large fleet is learnt over a few looks, the API budget barely touched. */
  static final int IDENTITIES_A_LOOK = 200;

  private final ScheduledEvents events;
  private final Cluster cluster;
  private final Supplier<List<NodeInfo>> selected;
  private final Consumer<WebhookMessage> engine;
  private final Duration lead;
  private final Clock clock;
  /** A node without an instance is read again after this: its cloud controller may set its providerID late. */
  private static final Duration NO_INSTANCE_RECHECK = Duration.ofHours(1);
  /** Each node's instance, once read, and when (a node without one: empty). */
  private final Map<String, Learned> instances = new ConcurrentHashMap<>();

  private record Learned(Optional<String> instanceId, Instant at) {}

  /** A pending event of a selected node, as the last look that read the events saw it; {@code due}: fired. */
  public record Upcoming(String node, ScheduledEvent event, boolean due) {}

  private volatile List<Upcoming> upcoming = List.of();

  public MaintenanceWatch(ScheduledEvents events, Cluster cluster, Supplier<List<NodeInfo>> selected,
      Consumer<WebhookMessage> engine, Duration lead, Clock clock) {
    this.events = events;
    this.cluster = cluster;
    this.selected = selected;
    this.engine = engine;
    this.lead = lead;
    this.clock = clock;
  }

  /** One look: the alerts it fired and resolved, sent to the engine as one webhook. */
  public List<Alert> look() {
    List<NodeInfo> nodes = selected.get();
    learn(nodes);
    List<ScheduledEvent> scheduled;
    try {
      scheduled = events.scheduled();
    } catch (OutboundException e) {
      LOGGER.warn("cloud maintenance: the scheduled events could not be read, nothing concluded: {}", e.getMessage());
      return List.of();
    }
    Instant now = clock.instant();
    Map<String, List<ScheduledEvent>> byInstance = new HashMap<>();
    scheduled.forEach(e -> byInstance.computeIfAbsent(e.instanceId(), k -> new ArrayList<>()).add(e));
    List<Alert> out = new ArrayList<>();
    List<Upcoming> pending = new ArrayList<>();
    for (NodeInfo n : nodes) {
      Optional<String> instance = Optional.ofNullable(instances.get(n.name())).flatMap(Learned::instanceId);
      if (instance.isEmpty()) {
        continue; // which instance it is is not known (yet): nothing is concluded about it, not even that its event is over
      }
      List<ScheduledEvent> mine = byInstance.getOrDefault(instance.get(), List.of());
      List<String> due = new ArrayList<>();
      for (ScheduledEvent e : mine) {
        boolean fires = e.pending(now) && !now.isBefore(e.notBefore().minus(lead));
        if (fires) {
          out.add(firing(n.name(), e));
          due.add(e.key());
        }
        if (e.pending(now)) {
          pending.add(new Upcoming(n.name(), e, fires));
        }
      }
      for (Episode ep : n.ledger().episodes().values()) {
        if (ep.alertname().equals(ALERTNAME) && !due.contains(ep.labels().getOrDefault("event_id", ""))) {
          out.add(new Alert(AlertStatus.RESOLVED, ep.labels(), ep.annotations(), ep.startsAt(), Optional.of(now), "",
              ep.fingerprint()));
        }
      }
    }
    upcoming = List.copyOf(pending);
    if (!out.isEmpty()) {
      engine.accept(new WebhookMessage("cloud-maintenance", out.stream().anyMatch(Alert::isFiring) ? AlertStatus.FIRING
          : AlertStatus.RESOLVED, "", 0, Map.of(), out));
    }
    return out;
  }

  /** The selected nodes' pending events as the last look that read them saw them, the soonest first. */
  public List<Upcoming> upcoming() {
    return upcoming.stream().sorted(Comparator.comparing((Upcoming u) -> u.event().notBefore()).thenComparing(Upcoming::node))
        .toList();
  }

  private Alert firing(String node, ScheduledEvent e) {
    Map<String, String> labels = Map.of("alertname", ALERTNAME, "node", node, "event_code", e.code(), "event_id", e.key(),
        "not_before", e.notBefore().toString(), "instance", e.instanceId(), "source", "aws", "severity", "critical",
        "remediate", "true");
    Map<String, String> annotations = Map.of("summary", "EC2 " + e.code() + " of " + node + " (" + e.instanceId()
        + ") not before " + e.notBefore() + e.notAfter().map(a -> ", not after " + a).orElse(""),
        "description", e.description());
    return new Alert(AlertStatus.FIRING, labels, annotations, e.notBefore().minus(lead), Optional.empty(), "",
        fingerprint(node, e.key()));
  }

  /** Reads the instances of selected nodes not read yet, at most {@value #IDENTITIES_A_LOOK}. */
  private void learn(List<NodeInfo> nodes) {
    int read = 0;
    Instant now = clock.instant();
    // Nodes under a maintenance episode first: after a restart, theirs is what decides whether one is over.
    List<NodeInfo> order = nodes.stream().sorted(Comparator.comparing((NodeInfo n) -> n.ledger().episodes().values().stream()
        .noneMatch(e -> e.alertname().equals(ALERTNAME)))).toList();
    for (NodeInfo n : order) {
      Learned known = instances.get(n.name());
      boolean recheck = known != null && known.instanceId().isEmpty() && !known.at().plus(NO_INSTANCE_RECHECK).isAfter(now);
      if (known != null && !recheck || read >= IDENTITIES_A_LOOK) {
        continue;
      }
      read++;
      try {
        Optional<String> id = cluster.identity(n.name()).providerId().map(ProviderId::parse)
            .filter(p -> p instanceof ProviderId.Aws).map(p -> ((ProviderId.Aws) p).instanceId());
        instances.put(n.name(), new Learned(id, now));
      } catch (ClusterException e) {
        LOGGER.debug("cloud maintenance: {}'s providerID not read yet: {}", n.name(), e.getMessage());
      }
    }
    instances.keySet().retainAll(nodes.stream().map(NodeInfo::name).collect(Collectors.toSet()));
  }

  /** The alert's fingerprint: one per node and event. */
  static String fingerprint(String node, String event) {
    try {
      byte[] d = MessageDigest.getInstance("SHA-256").digest((ALERTNAME + "/" + node + "/" + event)
          .getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(d, 0, 8);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is part of every JVM", e);
    }
  }
}
