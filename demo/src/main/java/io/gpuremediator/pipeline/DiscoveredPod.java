package io.gpuremediator.pipeline;

import io.gpuremediator.simcluster.SimNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod that Prometheus' {@code kubernetes_sd_configs} (role pod) would discover in the simulated
 * cluster: the exporters' DaemonSet pods (dcgm-exporter and node-exporter on GPU nodes, NPD and neuron-monitor on
 * Trainium nodes), kube-state-metrics and Alertmanager. Each is reached at the
 * address and path where the simulator (or Alertmanager) serves it on 127.0.0.1, and carries the
 * {@code __meta_kubernetes_*} labels that the production relabel rules read, made from the pod's own labels
 * as Kubernetes discovery makes them.
 */
public record DiscoveredPod(String namespace, String name, String node, Map<String, String> podLabels, int containerPort, String address,
    String metricsPath) {

  /** The GPU Operator's dcgm-exporter pods ({@code assets/state-dcgm-exporter/0800_daemonset.yaml} of NVIDIA/gpu-operator). */
  public static final Map<String, String> GPU_OPERATOR_DCGM_EXPORTER = Map.of("app", "nvidia-dcgm-exporter");
  /** The dcgm-exporter Helm chart's pods. */
  public static final Map<String, String> CHART_DCGM_EXPORTER = Map.of("app.kubernetes.io/name", "dcgm-exporter");

  /** Copies the labels. */
  public DiscoveredPod {
    podLabels = Map.copyOf(podLabels);
  }

  /** The labels a static target needs to stand in for this discovered pod. */
  Map<String, String> targetLabels() {
    Map<String, String> l = new LinkedHashMap<>();
    l.put("__meta_kubernetes_namespace", namespace);
    l.put("__meta_kubernetes_pod_name", name);
    l.put("__meta_kubernetes_pod_node_name", node);
    podLabels.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> {
      String key = sanitized(e.getKey());
      l.put("__meta_kubernetes_pod_label_" + key, e.getValue());
      l.put("__meta_kubernetes_pod_labelpresent_" + key, "true");
    });
    l.put("__meta_kubernetes_pod_container_port_number", Integer.toString(containerPort));
    if (metricsPath != null) {
      l.put("__metrics_path__", metricsPath);
    }
    return l;
  }

  /** A label name as Prometheus' Kubernetes discovery spells it in a meta label: every invalid character an underscore. */
  static String sanitized(String labelName) {
    return labelName.replaceAll("[^a-zA-Z0-9_]", "_");
  }

  /**
   * The pods of the simulated fleet: what runs on each node, plus the monitoring stack's own. dcgm-exporter runs as
   * the GPU Operator installs it, the way most GPU clusters run it.
   */
  public static List<DiscoveredPod> of(List<SimNode> nodes, int simulatorPort, int alertmanagerPort) {
    String sim = "127.0.0.1:" + simulatorPort;
    List<DiscoveredPod> pods = new ArrayList<>();
    for (SimNode n : nodes) {
      if (n.kind() == SimNode.Kind.GPU) {
        pods.add(new DiscoveredPod("gpu-operator", "nvidia-dcgm-exporter-" + n.name(), n.name(), GPU_OPERATOR_DCGM_EXPORTER, 9400, sim,
            "/metrics/dcgm/" + n.name()));
        pods.add(new DiscoveredPod("monitoring", "prometheus-node-exporter-" + n.name(), n.name(), app("prometheus-node-exporter"),
            9100, sim, "/metrics/node-exporter/" + n.name()));
      } else {
        pods.add(new DiscoveredPod("kube-system", "node-problem-detector-" + n.name(), n.name(), app("node-problem-detector"), 20257, sim,
            "/metrics/npd/" + n.name()));
        // As AWS's reference DaemonSet deploys it (aws-neuron-sdk src/k8/k8s-neuron-monitor-daemonset.yml).
        pods.add(new DiscoveredPod("neuron-monitor", "neuron-monitor-" + n.name(), n.name(), Map.of("app", "neuron-monitor",
            "version", "v1"), 8000, sim, "/metrics/neuron-monitor/" + n.name()));
      }
    }
    String first = nodes.get(0).name();
    pods.add(new DiscoveredPod("monitoring", "kube-state-metrics-0", first, app("kube-state-metrics"), 8080, sim, "/metrics/kube-state-metrics"));
    pods.add(new DiscoveredPod("monitoring", "alertmanager-main-0", first, app("alertmanager"), 9093, "127.0.0.1:" + alertmanagerPort, null));
    return pods;
  }

  private static Map<String, String> app(String name) {
    return Map.of("app.kubernetes.io/name", name);
  }
}
