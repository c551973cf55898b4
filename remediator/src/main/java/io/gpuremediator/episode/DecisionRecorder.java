package io.gpuremediator.episode;

import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.event.Level;

/**
 * Keeps every decision for the API, counts it, and logs it on one line: at INFO what changed a node, was refused or
 * failed (a webhook's refusals for the whole fleet, as the breaker's, on one line per reason); at DEBUG what was
 * ignored or only a dry-run (a 200-alert dry-run webhook is 200 lines; they are all in
 * {@code GET /api/v1/decisions}, in {@code remediator_decisions_total}, and summed in the webhook's own line).
 */
public final class DecisionRecorder implements DecisionListener {
  private static final Logger LOGGER = LoggerFactory.getLogger("io.gpuremediator.decision");

  private final DecisionLog log;
  private final RemediatorMetrics metrics;

  /** Creates the recorder. */
  public DecisionRecorder(DecisionLog log, RemediatorMetrics metrics) {
    this.log = log;
    this.metrics = metrics;
  }

  @Override
  public void decided(Decision d) {
    record(d);
    logLine(d);
  }

  /**
   * Records a webhook's decisions. Refusals for the whole fleet (paused, breaker open, no state) share one line per
   * reason, naming every node: a 200-alert storm is one line, not 200 alike.
   */
  @Override
  public void decidedAll(List<Decision> decisions) {
    Map<Reason, List<Decision>> fleetWide = new EnumMap<>(Reason.class);
    int[] byReason = new int[Reason.values().length]; // counted once per reason, not once per alert
    for (Decision d : decisions) {
      log.add(d);
      byReason[d.reason().ordinal()]++;
      actedAfter(d);
      if (FLEET_WIDE.contains(d.reason())) {
        fleetWide.computeIfAbsent(d.reason(), r -> new ArrayList<>()).add(d);
      } else {
        logLine(d);
      }
    }
    for (Reason r : Reason.values()) {
      if (byReason[r.ordinal()] > 0) {
        metrics.decided(r.outcome().code(), r.code(), byReason[r.ordinal()]);
      }
    }
    fleetWide.forEach((reason, refused) -> {
      if (refused.size() == 1) {
        logLine(refused.get(0));
      } else if (LOGGER.isInfoEnabled()) {
        LOGGER.info(groupLine(reason, refused));
      }
    });
  }

  private static final Set<Reason> FLEET_WIDE = EnumSet.of(Reason.BREAKER_OPEN, Reason.PAUSED,
      Reason.SAFETY_STATE_UNAVAILABLE);

  /** One logfmt line for refusals of one fleet-wide reason: how many, every node and alertname, the first detail. */
  static String groupLine(Reason reason, List<Decision> refused) {
    StringBuilder b = new StringBuilder(64 + refused.size() * 24).append("decisions outcome=")
        .append(refused.get(0).outcome().code()).append(" reason=").append(reason.code())
        .append(" count=").append(refused.size());
    quoted(b.append(" alertnames="),
        String.join(",", refused.stream().map(Decision::alertname).distinct().sorted().toList()));
    quoted(b.append(" nodes="), String.join(",", refused.stream().map(Decision::node).distinct().toList()));
    quoted(b.append(" detail="), refused.get(0).detail());
    return b.toString();
  }

  private void record(Decision d) {
    log.add(d);
    metrics.decided(d.outcome().code(), d.reason().code());
    actedAfter(d);
  }

  private void actedAfter(Decision d) {
    if (d.reason() == Reason.ACTIONS_APPLIED) {
      metrics.actedAfter(Duration.between(d.startsAt(), d.time()).toMillis() / 1000.0);
    }
  }

  /**
   * The decision's line, with node, playbook, episode (the hash its Jobs are labelled with), outcome and reason also as
   * key-value pairs: fields of their own with {@code log_format: json}, for a log pipeline to filter on.
   */
  private static void logLine(Decision d) {
    boolean routine = d.outcome() == Outcome.DRY_RUN || d.outcome() == Outcome.IGNORED;
    if (routine ? LOGGER.isDebugEnabled() : LOGGER.isInfoEnabled()) {
      LOGGER.atLevel(routine ? Level.DEBUG : Level.INFO)
          .addKeyValue("node", d.node())
          .addKeyValue("playbook", d.playbook())
          .addKeyValue("episode", EpisodeNames.episodeHash(d.node(), d.fingerprint(), d.startsAt()))
          .addKeyValue("outcome", d.outcome().code())
          .addKeyValue("reason", d.reason().code())
          .addKeyValue("alertname", d.alertname())
          .log(line(d));
    }
  }

  @Override
  public void actionTimed(String action, String outcome, double seconds) {
    metrics.actionTimed(action, outcome, seconds);
  }

  /** Every stage that is not over, 0 when no episode is in it, so dashboards always see the series; the GPUs fenced. */
  @Override
  public void stages(Map<Stage, Integer> counts, int gpusFenced) {
    Map<String, Integer> byCode = new TreeMap<>();
    for (Stage s : Stage.values()) {
      if (!s.isOver()) {
        byCode.put(s.code(), counts.getOrDefault(s, 0));
      }
    }
    metrics.episodeStages(byCode);
    metrics.gpusFenced(gpusFenced);
  }

  @Override
  public void oldestSteps(Map<String, Instant> startedByKind) {
    Map<String, Double> seconds = new TreeMap<>();
    startedByKind.forEach((kind, at) -> seconds.put(kind, at.toEpochMilli() / 1000.0));
    metrics.oldestSteps(seconds);
  }

  @Override
  public void stepFinished(String kind, String outcome, double seconds) {
    metrics.stepFinished(kind, outcome, seconds);
  }

  @Override
  public void repaired(String playbook, String step, double seconds) {
    metrics.repaired(playbook, step, seconds);
  }

  @Override
  public void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {
    metrics.episodeEnded(playbook, outcome, closedBy, seconds);
  }

  @Override
  public void incidentInterval(double seconds) {
    metrics.incidentInterval(seconds);
  }

  /** The logfmt line for a decision; every value that came from an alert is quoted and escaped. */
  static String line(Decision d) {
    StringBuilder b = new StringBuilder(256).append("decision outcome=").append(d.outcome().code())
        .append(" reason=").append(d.reason().code());
    quoted(b.append(" fingerprint="), d.fingerprint());
    quoted(b.append(" alertname="), d.alertname());
    b.append(" status=").append(d.status());
    quoted(b.append(" node="), d.node());
    quoted(b.append(" playbook="), d.playbook());
    b.append(" starts_at=").append(d.startsAt());
    quoted(b.append(" detail="), d.detail());
    return b.toString();
  }

  /** Quotes a value so that no label content can forge a field or a log line. */
  static String quote(String value) {
    return quoted(new StringBuilder(value.length() + 2), value).toString();
  }

  private static StringBuilder quoted(StringBuilder b, String value) {
    b.append('"');
    if (isPlain(value)) {
      return b.append(value).append('"');
    }
    value.codePoints().forEach(c -> {
      switch (c) {
        case '"' -> b.append("\\\"");
        case '\\' -> b.append("\\\\");
        case '\n' -> b.append("\\n");
        case '\r' -> b.append("\\r");
        case '\t' -> b.append("\\t");
        default -> {
          if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0x2028 || c == 0x2029) {
            b.append(String.format("\\u%04x", c));
          } else {
            b.appendCodePoint(c);
          }
        }
      }
    });
    return b.append('"');
  }

  /** Whether printable ASCII without quote or backslash: the common case, quoted as it is. */
  private static boolean isPlain(String value) {
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') {
        return false;
      }
    }
    return true;
  }
}
