package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simcluster.SimCluster;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The simulated cluster (fabric8 mock API server in CRUD mode on 127.0.0.1) in this JVM, seeded with
 * minimal Ready GPU nodes: the benchmarks measure the service, so its nodes stay as small as they were.
 */
final class MockApiServer implements AutoCloseable {
  /** The cluster every latency section runs in: {@code -Dbench.fleet} nodes, 100,000 by default. */
  static final int FLEET = Integer.getInteger("bench.fleet", 100_000);
  /** Of which GPU nodes, the ones the service selects: {@code -Dbench.selected}, 20,000 by default. */
  static final int SELECTED = Integer.getInteger("bench.selected", 20_000);
  /** The service's node_selector over that fleet, as deployed (the chart's default). */
  static final String SELECTOR = "node_selector: nvidia.com/gpu.present=true\n";
  private final SimCluster cluster;

  static void quiet() {
    SimCluster.quiet();
  }

  /** A server seeded with {@code nodes} minimal Ready GPU nodes, each created through the API. */
  MockApiServer(int nodes) throws IOException {
    cluster = SimCluster.start("127.0.0.1", 0);
    for (int i = 0; i < nodes; i++) {
      cluster.client().nodes().resource(minimalNode(i)).create();
    }
  }

  private MockApiServer() {
    cluster = SimCluster.start("127.0.0.1", 0);
  }

  /**
   * The latency sections' cluster: {@link #SELECTED} minimal Ready GPU nodes ({@code gpu-node-0...}) among
   * {@link #FLEET} nodes, the rest minimal nodes without GPUs ({@code cpu-node-0...}), straight into the store. The
   * service selects the GPU nodes by {@link #SELECTOR}; every read and write it makes goes to a server holding them all.
   */
  static MockApiServer fleet() {
    MockApiServer api = new MockApiServer();
    api.cluster.preloadNodes(fleetNodes(0));
    return api;
  }

  /** The fleet's nodes, GPU nodes from {@code gpuFrom} on (those before are another's to make). */
  static List<Node> fleetNodes(int gpuFrom) {
    List<Node> fleet = new ArrayList<>(FLEET - gpuFrom);
    for (int i = gpuFrom; i < SELECTED; i++) {
      fleet.add(minimalNode(i));
    }
    for (int i = 0; i < FLEET - SELECTED; i++) {
      Node cpu = minimalNode(i);
      cpu.getMetadata().setName("cpu-node-" + i);
      cpu.getMetadata().setLabels(Map.of("kubernetes.io/hostname", "cpu-node-" + i));
      cpu.getStatus().getAddresses().get(0).setAddress("11." + (i / 62500) + "." + (i / 250 % 250) + "." + (i % 250 + 1));
      fleet.add(cpu);
    }
    return fleet;
  }

  private static Node minimalNode(int i) {
    return new NodeBuilder()
        .withNewMetadata().withName(nodeName(i)).addToLabels("nvidia.com/gpu.present", "true")
        .addToLabels("nvidia.com/gpu.count", "8").endMetadata() // as GPU Feature Discovery labels it: GPUs never guessed
        .withNewSpec().endSpec()
        .withNewStatus().addNewAddress().withType("InternalIP")
        .withAddress("10." + (1 + i / 62500) + "." + (i / 250 % 250) + "." + (i % 250 + 1)).endAddress()
        .addNewCondition().withType("Ready").withStatus("True").endCondition().endStatus()
        .build();
  }

  /**
   * A server seeded with {@code gpuNodes} nodes that look like a cloud GPU node (60 labels, 20 annotations, five
   * conditions, 8 GPUs of capacity, three addresses) and {@code otherNodes} of the same size without GPUs (the rest of a
   * large cluster: no GPU label, no GPU capacity). Straight into the store: 100,000 creates would be 100,000 requests
   * and watch events (10,000 took 200 s when each create still scanned the store).
   */
  MockApiServer(int gpuNodes, int otherNodes) throws IOException {
    cluster = SimCluster.start("127.0.0.1", 0);
    List<Node> fleet = new ArrayList<>(gpuNodes + otherNodes);
    for (int i = 0; i < gpuNodes + otherNodes; i++) {
      fleet.add(i < gpuNodes ? realisticNode(i) : withoutGpus(realisticNode(i - gpuNodes)));
    }
    cluster.preloadNodes(fleet);
  }

  private static Node realisticNode(int i) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("nvidia.com/gpu.present", "true");
    labels.put("kubernetes.io/hostname", nodeName(i));
    labels.put("node.kubernetes.io/instance-type", "p5.48xlarge");
    labels.put("topology.kubernetes.io/zone", "us-east-1" + (char) ('a' + i % 4));
    for (int l = labels.size(); l < 60; l++) {
      labels.put("example.com/label-" + l, "value-" + (i % 37) + "-" + l);
    }
    Map<String, String> annotations = new LinkedHashMap<>();
    for (int a = 0; a < 20; a++) {
      annotations.put("example.com/annotation-" + a, "some-annotation-value-of-realistic-length-" + a + "-" + i);
    }
    Map<String, Quantity> capacity = Map.of(
        "nvidia.com/gpu", new Quantity("8"),
        "cpu", new Quantity("192"),
        "memory", new Quantity("2063731364Ki"),
        "pods", new Quantity("110"));
    NodeBuilder b = new NodeBuilder().withNewMetadata().withName(nodeName(i)).withLabels(labels)
        .withAnnotations(annotations).endMetadata()
        .withNewSpec().withProviderID("aws:///us-east-1a/i-0" + Integer.toHexString(0x1000000 + i)).endSpec();
    var status = b.withNewStatus().withCapacity(capacity).withAllocatable(capacity)
        .addNewAddress().withType("InternalIP").withAddress("10." + (i / 62500) + "." + (i / 250 % 250) + "." + (i % 250 + 1))
        .endAddress().addNewAddress().withType("Hostname").withAddress(nodeName(i)).endAddress()
        .addNewAddress().withType("InternalDNS").withAddress(nodeName(i) + ".ec2.internal").endAddress();
    for (String type : List.of("MemoryPressure", "DiskPressure", "PIDPressure", "NetworkUnavailable")) {
      status = status.addNewCondition().withType(type).withStatus("False").withReason("KubeletHasSufficient" + type)
          .withLastTransitionTime("2026-11-01T00:00:00Z").withLastHeartbeatTime("2026-11-22T09:59:00Z").endCondition();
    }
    return status.addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
        .withLastTransitionTime("2026-11-01T00:00:00Z").withLastHeartbeatTime("2026-11-22T09:59:00Z").endCondition()
        .endStatus().build();
  }

  /** A node of the same size that has no GPU: another name, no GPU label, no GPU capacity. */
  private static Node withoutGpus(Node gpu) {
    String name = "cpu-node-" + gpu.getMetadata().getName().substring("gpu-node-".length());
    Map<String, String> labels = new LinkedHashMap<>(gpu.getMetadata().getLabels());
    labels.remove("nvidia.com/gpu.present");
    labels.put("kubernetes.io/hostname", name);
    labels.put("node.kubernetes.io/instance-type", "m6i.16xlarge");
    Map<String, Quantity> capacity = new LinkedHashMap<>(gpu.getStatus().getCapacity());
    capacity.remove("nvidia.com/gpu");
    gpu.getMetadata().setName(name);
    gpu.getMetadata().setLabels(labels);
    gpu.getStatus().setCapacity(capacity);
    gpu.getStatus().setAllocatable(capacity);
    NodeAddress ip = gpu.getStatus().getAddresses().get(0);
    gpu.getStatus().getAddresses().set(0, new NodeAddress("11" + ip.getAddress().substring(2), "InternalIP"));
    return gpu;
  }

  /** Puts running pods straight into the store, as {@link #fleet} does nodes. */
  void preloadPods(String namespace, List<Pod> pods) {
    cluster.preloadPods(namespace, pods);
  }

  static String nodeName(int i) {
    return "gpu-node-" + i;
  }

  KubernetesClient client() {
    return cluster.client();
  }

  /** The newest requests the server answered (at most 10,000), oldest first, as {@code METHOD path}. */
  List<String> requestLog() {
    return cluster.requestLog();
  }

  /** Writes a kubeconfig pointing at this server, as a real cluster's would. */
  Path writeKubeconfig(Path file) throws IOException {
    return cluster.writeKubeconfig(file);
  }

  /**
   * The service's own client of this server, built as {@code serve} builds it (from a kubeconfig, with its timeouts and
   * retries), with that budget: not {@link #client()}, which the simulated cluster's Job controller and provisioner
   * share, and whose watches and writes would then share the service's connections and event loops.
   */
  KubeApi serviceApi(Path work, int qps, int burst, int writesInFlight) throws IOException {
    return KubeApi.connect(Optional.of(writeKubeconfig(work.resolve("service-kubeconfig.yaml"))), qps, burst,
        writesInFlight);
  }

  @Override
  public void close() {
    cluster.close();
  }
}
