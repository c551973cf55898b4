package io.gpuremediator.bench;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Webhook bodies as Alertmanager sends them. */
final class Payloads {
  private Payloads() {}

  /** {@code count} firing hardware-XID alerts, one per node, in one webhook. */
  static String xidStorm(int count) {
    return xidStorm(count, "2026-11-22T10:00:00Z");
  }

  /** The same, all started at {@code startsAt} (a new time is a new episode of every alert). */
  static String xidStorm(int count, String startsAt) {
    return xidStorm(0, count, startsAt);
  }

  /** {@code count} firing hardware-XID alerts on the nodes numbered from {@code first}, started at {@code startsAt}. */
  static String xidStorm(int first, int count, String startsAt) {
    JsonArray alerts = new JsonArray();
    for (int i = first; i < first + count; i++) {
      alerts.add(alert("firing", i, "79").put("startsAt", startsAt));
    }
    return envelope("firing", alerts);
  }

  /** One alert for node {@code i}. */
  static String single(String status, int i) {
    return envelope(status, new JsonArray().add(alert(status, i, "79")));
  }

  /**
   * One reset-class XID alert (XID 48, the catalog's reset) on GPU {@code gpu} of node {@code i}, with the GPU's UUID as
   * dcgm-exporter labels it: on a DRA node the shipped playbooks fence that GPU.
   */
  static String onGpu(int i, int gpu, String uuid) {
    JsonObject a = alert("firing", i, "48");
    a.getJsonObject("labels").put("gpu", Integer.toString(gpu)).put("UUID", uuid).put("recommended_action", "reset_gpu")
        .put("source", "dcgm");
    return envelope("firing", new JsonArray().add(a.put("fingerprint", String.format("%016x", 0xfe0ce000L + i))));
  }

  /** One firing reset-class XID alert (XID 48, the catalog's GPU reset) on node {@code i}: drain, reset Job, diagnose Job. */
  static String reset(int i) {
    JsonObject a = alert("firing", i, "48");
    a.getJsonObject("labels").put("recommended_action", "reset_gpu").put("source", "dcgm");
    return envelope("firing", new JsonArray().add(a));
  }

  private static JsonObject alert(String status, int i, String xid) {
    return new JsonObject().put("status", status)
        .put("labels", new JsonObject().put("alertname", "GpuXidHardwareError").put("node", MockApiServer.nodeName(i))
            .put("Hostname", MockApiServer.nodeName(i)).put("gpu", Integer.toString(i % 8)).put("xid", xid)
            .put("severity", "critical").put("remediate", "true").put("instance", "10.1.0." + (i % 250 + 1) + ":9400")
            .put("job", "dcgm-exporter").put("modelName", "NVIDIA H100 80GB HBM3"))
        .put("annotations", new JsonObject().put("summary", "XID " + xid + " on GPU " + (i % 8))
            .put("description", "GPU fell off the bus").put("runbook_url", "https://runbooks/GpuXidHardwareError"))
        .put("startsAt", "2026-11-22T10:00:00Z").put("endsAt", "0001-01-01T00:00:00Z")
        .put("generatorURL", "http://prometheus:9090/graph?g0.expr=DCGM_FI_DEV_XID_ERRORS")
        .put("fingerprint", String.format("%016x", 0x5eed0000L + i));
  }

  private static String envelope(String status, JsonArray alerts) {
    return new JsonObject().put("receiver", "remediator").put("status", status).put("alerts", alerts)
        .put("groupLabels", new JsonObject()).put("commonLabels", new JsonObject()).put("commonAnnotations", new JsonObject())
        .put("externalURL", "http://alertmanager:9093").put("version", "4").put("groupKey", "{}/{remediate=\"true\"}:{}")
        .put("truncatedAlerts", 0).encode();
  }
}
