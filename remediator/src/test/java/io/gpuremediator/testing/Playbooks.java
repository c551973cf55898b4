package io.gpuremediator.testing;

import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.playbook.load.PlaybookLoader;
import java.util.List;

/**
 * A test's playbook YAML, as the file would stand: the playbooks most tests start with quarantine the node on an XID
 * (the taint {@code gpu-remediator.io/unhealthy=xid:NoSchedule}, a cordon), then take the steps the test is about.
 */
public final class Playbooks {
  private Playbooks() {}

  /** The playbooks of {@link ServiceConfig#IMMEDIATE_PLAYBOOKS}, loaded (they act on an alert at once). */
  public static PlaybookSet immediate() {
    return PlaybookLoader.load(List.of(ServiceConfig.IMMEDIATE_PLAYBOOKS)).set();
  }

  /**
   * The playbook {@code name} for {@code GpuXidHardwareError}: the quarantine, then {@code rest}, the playbook file
   * after its cordon as it stands there (its further steps indented six spaces, an {@code on_resolved:} four, further
   * playbooks two). {@code rest} may hold {@link String#format} arguments; the quarantine holds none.
   */
  public static String quarantining(String name, String rest) {
    return quarantining(name, "xid", rest);
  }

  /** The same, its taint's value {@code taintValue}. */
  public static String quarantining(String name, String taintValue, String rest) {
    return """
        playbooks:
          - name: NAME
            match: ['alertname="GpuXidHardwareError"']
            actions:
              - taint: {key: gpu-remediator.io/unhealthy, value: VALUE, effect: NoSchedule}
              - cordon: {}
        """.replace("NAME", name).replace("VALUE", taintValue) + rest;
  }
}
