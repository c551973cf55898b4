package io.gpuremediator.simapi;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The DaemonSet controller, for one DaemonSet read from its real manifest: a pod of it on every node whose labels its
 * {@code nodeSelector} matches (named {@code <daemonset>-<suffix>}, owned by the DaemonSet, Running), and none on a node
 * it no longer matches (deleted, as the controller deletes it). So a GPU Operator operand whose deploy label is set to
 * another value than "true" (a pause) leaves the node, and comes back when the label does.
 */
public final class DaemonSetController implements AutoCloseable {
  private final KubernetesClient client;
  private final boolean ownsClient;
  private final String name;
  private final Map<String, String> nodeSelector;
  private final Function<String, Pod> podFor;
  private final String namespace;
  private final List<String> history = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "sim-daemonset-controller");
    t.setDaemon(true);
    return t;
  });

  /**
   * The DaemonSet of {@code manifest} (a recorded file; a value the operator fills in, such as its namespace, is given
   * here), in {@code namespace}.
   */
  public DaemonSetController(EmulatedApiServer server, Path manifest, String namespace) {
    this(server.client(), true, namespace, read(manifest));
  }

  private DaemonSetController(KubernetesClient client, boolean ownsClient, String namespace, DaemonSet ds) {
    this(client, ownsClient, namespace, ds.getMetadata().getName(), ds.getSpec().getTemplate().getSpec().getNodeSelector(),
        node -> new PodBuilder().withNewMetadata().withName(podName(ds.getMetadata().getName(), node))
            .withNamespace(namespace).withLabels(ds.getSpec().getTemplate().getMetadata().getLabels())
            .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName(ds.getMetadata().getName())
            .withUid("uid-" + ds.getMetadata().getName()).withController(true).endOwnerReference().endMetadata()
            .withNewSpec().withNodeName(node).addNewContainer().withName(ds.getMetadata().getName()).withImage("sim")
            .endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build());
  }

  private DaemonSetController(KubernetesClient client, boolean ownsClient, String namespace, String name,
      Map<String, String> nodeSelector, Function<String, Pod> podFor) {
    this.client = client;
    this.ownsClient = ownsClient;
    this.namespace = namespace;
    this.name = name;
    this.nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    this.podFor = podFor;
  }

  /**
   * A DaemonSet whose manifest is a template (the GPU Operator's v26.7 {@code manifests/}): its {@code nodeSelector}
   * as the recorded manifest gives it, its pod on a node as {@code podFor} makes it (named {@code <name>-<suffix>}).
   */
  public static DaemonSetController of(KubernetesClient client, String namespace, String name,
      Map<String, String> nodeSelector, Function<String, Pod> podFor) {
    return new DaemonSetController(client, false, namespace, name, nodeSelector, podFor);
  }

  private static DaemonSet read(Path manifest) {
    try {
      return Serialization.unmarshal(Files.readString(manifest), DaemonSet.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The name the controller gives a DaemonSet's pod on a node. */
  public static String podName(String daemonSet, String node) {
    return daemonSet + "-" + Integer.toHexString(node.hashCode() & 0xfffff);
  }

  /** Places and removes its pods five times a second. */
  public DaemonSetController start() {
    timer.scheduleWithFixedDelay(this::sync, 0, 200, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The name of its pod on the node. */
  public String podOn(String node) {
    return podName(name, node);
  }

  /** What it did, in order: {@code placed NODE}, {@code removed NODE}. */
  public List<String> history() {
    return List.copyOf(history);
  }

  /** Whether its pod runs on the node now. */
  public boolean runsOn(String node) {
    return client.pods().inNamespace(namespace).withName(podOn(node)).get() != null;
  }

  private void sync() {
    try {
      for (Node n : client.nodes().list().getItems()) {
        Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        boolean matches = labels.entrySet().containsAll(nodeSelector.entrySet());
        String node = n.getMetadata().getName();
        Pod pod = client.pods().inNamespace(namespace).withName(podOn(node)).get();
        if (matches && pod == null) {
          client.pods().inNamespace(namespace).resource(podFor.apply(node)).create();
          history.add("placed " + node);
        } else if (!matches && pod != null) {
          client.pods().inNamespace(namespace).withName(podOn(node)).delete();
          history.add("removed " + node);
        }
      }
    } catch (RuntimeException e) {
      if (!timer.isShutdown()) { // a read cut short by close() is no failure
        System.err.println("sim-daemonset-controller: " + e);
      }
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    if (ownsClient) {
      client.close();
    }
  }
}
