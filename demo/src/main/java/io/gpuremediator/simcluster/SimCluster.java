package io.gpuremediator.simcluster;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.simapi.JobKubelet;
import io.gpuremediator.simapi.Kubeconfig;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The Kubernetes API in memory on one loopback address: the fabric8 mock server in CRUD mode with the API
 * server's eviction, budget and field-selector behaviour ({@link EmulatedApiServer}); a Job controller and kubelet
 * that play the remediator's diagnostics, reboots and pre-flights ({@link JobController}); a kubelet that runs the
 * evidence and GPU reset Jobs' commands for real against fakes of a GPU node's tools built from recorded outputs
 * (simapi's {@link JobKubelet}: the shipped reset script against the fake nvidia-smi, the bug report written to the
 * claim {@value #EVIDENCE_CLAIM} as a cluster's ReadWriteMany volume would); and the provisioners of its GPU nodes:
 * Karpenter for most, Cluster API for two ({@link Provisioner}).
 */
public final class SimCluster implements AutoCloseable {
  /** The namespace of the training job whose pods run on the first GPU nodes. */
  public static final String JOB_NAMESPACE = "ml-training";
  private static final int TRAINING_PODS = 4;
  /** Held, so that its level survives: java.util.logging keeps loggers only weakly. */
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  /** The training job's PodDisruptionBudget: no worker may go until the job has written its checkpoint. */
  public static final String JOB_BUDGET = "llm-pretrain";
  /** The names of the nodes Karpenter launches in place of those whose NodeClaim was deleted start so. */
  public static final String LAUNCHED = Provisioner.LAUNCHED;
  /** The taint every node Karpenter launches registers with (its NodePool's startupTaints). */
  public static final String STARTUP_TAINT = Provisioner.STARTUP_TAINT;
  /**
   * A node labelled so, with a GPU's index, fails its diagnostics in this cluster: that GPU's memory is faulty (what no
   * repair mends), as the kubelet's fake dcgmi finds it.
   */
  public static final String FAILS_DIAGNOSTICS = JobKubelet.FAULTY_MEMORY_LABEL;

  /** The ReadWriteMany claim of the remediator's namespace that evidence reports are stored on. */
  public static final String EVIDENCE_CLAIM = "gpu-remediator-evidence";

  /**
   * Where the kubelet of evidence Jobs finds the fakes and the recorded outputs, and keeps node roots and claims.
   *
   * @param tools simapi/node-tools
   * @param recorded tests/real
   * @param work its working directory
   */
  public record Kubelet(Path tools, Path recorded, Path work) {}

  private final EmulatedApiServer server;
  private final KubernetesClient client;
  private final JobController jobs;
  private final Optional<JobKubelet> kubelet;
  private final Provisioner provisioner;
  private final AtomicInteger launchedIps = new AtomicInteger();

  private SimCluster(String host, int port, Optional<Kubelet> evidence) {
    quiet();
    server = EmulatedApiServer.start(host, port);
    client = server.client();
    kubelet = evidence.map(k -> new JobKubelet(server, "gpu-remediator", k.tools(), k.recorded(), k.work(),
        JobController::runsForReal));
    jobs = new JobController(client, server, kubelet.isPresent());
    provisioner = new Provisioner(client, name -> node(new SimNode(name, SimNode.Kind.GPU,
        "10.0.200." + launchedIps.incrementAndGet())));
  }

  /** The mock logs every request through java.util.logging; a cluster prints only warnings. */
  public static void quiet() {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  /** Starts serving on {@code host:port} (0 picks a free port). */
  public static SimCluster start(String host, int port) {
    return start(host, port, Optional.empty());
  }

  /** The same, with evidence Jobs run by a kubelet of their own when {@code evidence} says where. */
  public static SimCluster start(String host, int port, Optional<Kubelet> evidence) {
    SimCluster c = new SimCluster(host, port, evidence);
    c.jobs.start();
    c.kubelet.ifPresent(JobKubelet::start);
    c.provisioner.start();
    return c;
  }

  /** Creates the nodes, the namespaces and a training job's pods on the first GPU nodes; returns the pod count. */
  public int seed(List<SimNode> nodes) {
    for (String ns : List.of(JOB_NAMESPACE, "gpu-remediator", "monitoring", Provisioner.CAPI_NAMESPACE)) {
      client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build()).create();
    }
    nodes.forEach(n -> client.nodes().resource(node(n)).create());
    client.persistentVolumeClaims().inNamespace("gpu-remediator").resource(new PersistentVolumeClaimBuilder()
        .withNewMetadata().withName(EVIDENCE_CLAIM).withNamespace("gpu-remediator").endMetadata().withNewSpec()
        .withAccessModes("ReadWriteMany").withNewResources().addToRequests("storage", new Quantity("50Gi")).endResources()
        .endSpec().withNewStatus().withPhase("Bound").endStatus().build()).create();
    provisioner.seed(nodes.stream().filter(n -> n.kind() == SimNode.Kind.GPU).toList());
    List<SimNode> gpuNodes = nodes.stream().filter(n -> n.kind() == SimNode.Kind.GPU).limit(TRAINING_PODS).toList();
    for (int i = 0; i < gpuNodes.size(); i++) {
      client.pods().inNamespace(JOB_NAMESPACE).resource(new PodBuilder()
          .withNewMetadata().withName("llm-pretrain-worker-" + i).withNamespace(JOB_NAMESPACE)
          .addToLabels("app.kubernetes.io/name", "llm-pretrain").addToLabels("training.kubeflow.org/replica-index", Integer.toString(i))
          .endMetadata()
          .withNewSpec().withNodeName(gpuNodes.get(i).name()).addNewContainer().withName("trainer").withImage("nvcr.io/nvidia/pytorch:24.08-py3")
          .withNewResources().addToLimits("nvidia.com/gpu", new Quantity("8")).endResources().endContainer().endSpec()
          .withNewStatus().withPhase("Running").endStatus()
          .build()).create();
    }
    server.budget(JOB_NAMESPACE, JOB_BUDGET, "app.kubernetes.io/name", "llm-pretrain", 0);
    return gpuNodes.size();
  }

  static Node node(SimNode n) {
    boolean gpu = n.kind() == SimNode.Kind.GPU;
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put("kubernetes.io/hostname", n.name());
    labels.put("kubernetes.io/os", "linux");
    labels.put("node.kubernetes.io/instance-type", gpu ? "p5.48xlarge" : "trn1.32xlarge");
    labels.put("topology.kubernetes.io/zone", "us-east-1a");
    if (gpu) {
      labels.put("nvidia.com/gpu.present", "true");
      labels.put("nvidia.com/gpu.count", "8");
      labels.put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
    } else {
      // As an EKS managed node group labels a Trainium node (tests/real/nodes, a trn1.2xlarge): no accelerator label, its
      // instance type.
      labels.put("eks.amazonaws.com/nodegroup", "neuron-trn1-32xl");
      labels.put("eks.amazonaws.com/capacityType", "ON_DEMAND");
    }
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity("192"), "memory", new Quantity("2048Gi"), "pods", new Quantity("110"),
        gpu ? "nvidia.com/gpu" : "aws.amazon.com/neuron", new Quantity(gpu ? "8" : "16"));
    return new NodeBuilder()
        .withNewMetadata().withName(n.name()).withLabels(labels).endMetadata()
        .withNewSpec().withProviderID("aws:///us-east-1a/i-" + String.format("%017x", Math.abs((long) n.name().hashCode()))).endSpec()
        .withNewStatus()
        .addNewAddress().withType("InternalIP").withAddress(n.internalIp()).endAddress()
        .addNewAddress().withType("Hostname").withAddress(n.name()).endAddress()
        .withCapacity(capacity).withAllocatable(capacity)
        .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady").withMessage("kubelet is posting ready status")
        .endCondition()
        .withNewNodeInfo().withBootID(n.name() + "-boot-1").endNodeInfo()
        .endStatus()
        .build();
  }

  /** Puts nodes straight into the store, no request or event: see {@link EmulatedApiServer#preload}. */
  public void preloadNodes(List<Node> nodes) {
    server.preload("/api/v1/nodes", nodes);
  }

  /** Puts pods of one namespace straight into the store, no request or event: see {@link EmulatedApiServer#preload}. */
  public void preloadPods(String namespace, List<Pod> pods) {
    server.preload("/api/v1/namespaces/" + namespace + "/pods", pods);
  }

  /** The newest requests the API server answered, as {@code METHOD path}: see {@link EmulatedApiServer#requestLog}. */
  public List<String> requestLog() {
    return server.requestLog();
  }

  /** The API server's URL. */
  public String url() {
    return client.getMasterUrl().toString();
  }

  /** Writes a kubeconfig pointing at this server, as a real cluster's would (written whole, then moved in place). */
  public Path writeKubeconfig(Path file) throws IOException {
    return Kubeconfig.write(file, url());
  }

  /** A client of this cluster (for benchmarks in the same JVM). */
  public KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    provisioner.close();
    jobs.close();
    kubelet.ifPresent(JobKubelet::close);
    client.close();
    server.close();
  }
}
