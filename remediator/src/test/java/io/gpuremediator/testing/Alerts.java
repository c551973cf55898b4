package io.gpuremediator.testing;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Builds alerts and webhook bodies as Alertmanager sends them. */
public final class Alerts {
  /** The startsAt every test alert uses unless told otherwise. */
  public static final Instant STARTS = Instant.parse("2026-11-22T10:00:00Z");

  private Alerts() {}

  /**
   * A clock for a service under test that runs in real time (leases, retries and timeouts behave) but
   * reads one minute after {@link #STARTS}, so every test alert is equally recent whatever day the tests run.
   */
  public static Clock liveClock() {
    return Clock.offset(Clock.systemUTC(), Duration.between(Instant.now(), STARTS.plusSeconds(60)));
  }

  /** A firing hardware XID alert for a node. */
  public static Alert xid(String node, String xid) {
    return alert(AlertStatus.FIRING, "GpuXidHardwareError", "fp" + Integer.toHexString((node + xid).hashCode()),
        Map.of("node", node, "xid", xid, "gpu", "3", "severity", "critical", "remediate", "true"));
  }

  /** A firing hardware XID alert as the shipped rules send it: with the XID catalog's {@code recommended_action}. */
  public static Alert xid(String node, String xid, String action) {
    return alert(AlertStatus.FIRING, "GpuXidHardwareError", "fa" + Integer.toHexString((node + xid + action).hashCode()),
        Map.of("node", node, "xid", xid, "gpu", "3", "source", "dcgm", "recommended_action", action, "severity", "critical",
            "remediate", "true"));
  }

  /** The same alert, started again at {@code startsAt}: a new episode of the same fingerprint. */
  public static Alert startingAt(Alert a, Instant startsAt) {
    return new Alert(a.status(), a.labels(), a.annotations(), startsAt, a.endsAt(), a.generatorUrl(), a.fingerprint());
  }

  /** An alert with these labels (alertname added). */
  public static Alert alert(AlertStatus status, String alertname, String fingerprint, Map<String, String> labels) {
    Map<String, String> all = new LinkedHashMap<>(labels);
    all.put("alertname", alertname);
    String fp = fingerprint.replaceAll("[^0-9a-f]", "a");
    return new Alert(status, all, Map.of("summary", alertname + " on " + labels.getOrDefault("node", "?")), STARTS,
        Optional.empty(), "", fp);
  }

  /** The same alert with other labels (the same fingerprint). */
  public static Alert withLabels(Alert a, Map<String, String> labels) {
    return new Alert(a.status(), labels, a.annotations(), a.startsAt(), a.endsAt(), a.generatorUrl(), a.fingerprint());
  }

  /** The same alert, resolved. */
  public static Alert resolved(Alert a) {
    return new Alert(AlertStatus.RESOLVED, a.labels(), a.annotations(), a.startsAt(), Optional.of(a.startsAt().plusSeconds(600)),
        a.generatorUrl(), a.fingerprint());
  }

  /** A webhook message of these alerts. */
  public static WebhookMessage message(Alert... alerts) {
    return new WebhookMessage("remediator", alerts[0].status(), "{}", 0, Map.of(), List.of(alerts));
  }

  /** The JSON body Alertmanager would post for these alerts. */
  public static String json(Alert... alerts) {
    JsonArray list = new JsonArray();
    for (Alert a : alerts) {
      list.add(new JsonObject().put("status", a.status().code()).put("labels", new JsonObject(new LinkedHashMap<>(a.labels())))
          .put("annotations", new JsonObject(new LinkedHashMap<>(a.annotations()))).put("startsAt", a.startsAt().toString())
          .put("endsAt", a.endsAt().map(Instant::toString).orElse("0001-01-01T00:00:00Z"))
          .put("generatorURL", "http://prometheus/graph").put("fingerprint", a.fingerprint()));
    }
    return new JsonObject().put("receiver", "remediator").put("status", alerts[0].status().code()).put("alerts", list)
        .put("groupLabels", new JsonObject()).put("commonLabels", new JsonObject()).put("commonAnnotations", new JsonObject())
        .put("externalURL", "http://alertmanager").put("version", "4").put("groupKey", "{}:{}").put("truncatedAlerts", 0)
        .encode();
  }
}
