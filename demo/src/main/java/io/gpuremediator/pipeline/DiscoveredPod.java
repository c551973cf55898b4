package io.gpuremediator.pipeline;

import io.gpuremediator.simcluster.SimNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod that Prometheus' {@code kubernetes_sd_configs} (role pod) would discover in the simulated
 * cluster: the exporters' DaemonSet pods, kube-state-metrics and Alertmanager. Each is reached at the
 * address and path where the simulator (or Alertmanager) serves it on 127.0.0.1, and carries the
 * {@code __meta_kubernetes_*} labels that the production relabel rules read.
 */
public record DiscoveredPod(String namespace, String name, String node, String app, int containerPort, String address, String metricsPath) {

  /** The labels a static target needs to stand in for this discovered pod. */
  Map<String, String> targetLabels() {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("__meta_kubernetes_namespace", namespace);
    l.put("__meta_kubernetes_pod_name", name);
    l.put("__meta_kubernetes_pod_node_name", node);
    l.put("__meta_kubernetes_pod_label_app_kubernetes_io_name", app);
    l.put("__meta_kubernetes_pod_container_port_number", Integer.toString(containerPort));
    if (metricsPath != null) {
      l.put("__metrics_path__", metricsPath);
    }
    return l;
  }

  /** The pods of the simulated fleet: what runs on each node, plus the monitoring stack's own. */
  public static List<DiscoveredPod> of(List<SimNode> nodes, int simulatorPort, int alertmanagerPort) {
    String sim = "127.0.0.1:" + simulatorPort;
    List<DiscoveredPod> pods = new ArrayList<>();
    for (SimNode n : nodes) {
      if (n.kind() == SimNode.Kind.GPU) {
        pods.add(new DiscoveredPod("gpu-operator", "nvidia-dcgm-exporter-" + n.name(), n.name(), "dcgm-exporter", 9400, sim,
            "/metrics/dcgm/" + n.name()));
      } else {
        pods.add(new DiscoveredPod("kube-system", "node-problem-detector-" + n.name(), n.name(), "node-problem-detector", 20257, sim,
            "/metrics/npd/" + n.name()));
        pods.add(new DiscoveredPod("kube-system", "neuron-monitor-" + n.name(), n.name(), "neuron-monitor", 8000, sim,
            "/metrics/neuron-monitor/" + n.name()));
      }
    }
    String first = nodes.get(0).name();
    pods.add(new DiscoveredPod("monitoring", "kube-state-metrics-0", first, "kube-state-metrics", 8080, sim, "/metrics/kube-state-metrics"));
    pods.add(new DiscoveredPod("monitoring", "alertmanager-main-0", first, "alertmanager", 9093, "127.0.0.1:" + alertmanagerPort, null));
    return pods;
  }
}
