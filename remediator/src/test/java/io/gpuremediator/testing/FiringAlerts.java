package io.gpuremediator.testing;

import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;

/**
 * The alerts firing in a randomized test: new remediation alerts on random nodes of {@code gpu-node-0..}, one
 * fingerprint per alert name and node (so a new start of the same alert is a new episode of one fingerprint).
 */
public final class FiringAlerts {
  /** The remediation-class alerts a randomized test draws from. */
  public static final String[] REMEDIATION = {"GpuXidHardwareError", "GpuNvlinkDown", "GpuCountDropped", "GpuEccUncorrectable"};

  /** The XID catalog's actions the rules label an XID alert with; empty: no label. */
  private static final String[] XID_ACTIONS = {"", "reset_gpu", "reboot", "service"};

  private final Random random;
  private final Clock clock;
  private final int nodes;
  private final Map<String, Alert> firing = new LinkedHashMap<>();

  public FiringAlerts(Random random, Clock clock, int nodes) {
    this.random = random;
    this.clock = clock;
    this.nodes = nodes;
  }

  /** A new alert on a random node, starting now; it is firing until {@link #resolve}d. */
  public Alert fire() {
    int node = random.nextInt(nodes);
    String alertname = REMEDIATION[random.nextInt(REMEDIATION.length)];
    Map<String, String> labels = new HashMap<>(Map.of("node", "gpu-node-" + node, "gpu", "0", "UUID",
        DraObjects.uuid("gpu-node-" + node, 0), "xid", "79", "severity", "critical", "remediate", "true"));
    if (alertname.equals("GpuXidHardwareError")) { // each rung of the XID ladder, and rules older than it
      String action = XID_ACTIONS[random.nextInt(XID_ACTIONS.length)];
      if (!action.isEmpty()) {
        labels.put("recommended_action", action);
        labels.put("xid", action.equals("reset_gpu") ? "48" : action.equals("reboot") ? "79" : "61");
      }
    }
    String fp = Long.toHexString((alertname + node + labels.getOrDefault("recommended_action", "")).hashCode()
        & 0xffffffffL);
    Alert a = Alerts.alert(AlertStatus.FIRING, alertname, fp, labels);
    Alert fresh = new Alert(a.status(), a.labels(), a.annotations(), clock.instant(), Optional.empty(), "", a.fingerprint());
    firing.put(fresh.fingerprint(), fresh);
    return fresh;
  }

  /**
   * A new reset-class XID alert on a random GPU of a random node (one fingerprint per node and GPU), with the GPU's
   * UUID as dcgm-exporter labels it: on a DRA node, the shipped playbooks fence that GPU.
   */
  public Alert fireOnGpu() {
    int node = random.nextInt(nodes);
    int gpu = random.nextInt(8);
    Map<String, String> labels = Map.of("node", "gpu-node-" + node, "gpu", Integer.toString(gpu), "UUID",
        DraObjects.uuid("gpu-node-" + node, gpu), "xid", "48", "recommended_action", "reset_gpu", "source", "dcgm",
        "severity", "critical", "remediate", "true");
    String fp = Long.toHexString(("gpu" + node + "/" + gpu).hashCode() & 0xffffffffL);
    Alert a = Alerts.alert(AlertStatus.FIRING, "GpuXidHardwareError", fp, labels);
    Alert fresh = new Alert(a.status(), a.labels(), a.annotations(), clock.instant(), Optional.empty(), "", a.fingerprint());
    firing.put(fresh.fingerprint(), fresh);
    return fresh;
  }

  /** One of the firing alerts, at random (call only when {@link #isEmpty()} is false). */
  public Alert any() {
    List<Alert> all = new ArrayList<>(firing.values());
    return all.get(random.nextInt(all.size()));
  }

  /** The alert, resolved; it no longer fires. */
  public Alert resolve(Alert a) {
    firing.remove(a.fingerprint());
    return Alerts.resolved(a);
  }

  public boolean isEmpty() {
    return firing.isEmpty();
  }

  /** Every alert firing now. */
  public Collection<Alert> all() {
    return List.copyOf(firing.values());
  }
}
