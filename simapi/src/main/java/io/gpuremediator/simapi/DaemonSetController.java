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

/**
 * The DaemonSet controller, for one DaemonSet read from its real manifest: a pod of it on every node whose labels its
 * {@code nodeSelector} matches (named {@code <daemonset>-<suffix>}, owned by the DaemonSet, Running), and none on a node
 * it no longer matches (deleted, as the controller deletes it). So a GPU Operator operand whose deploy label is set to
 * another value than "true" (a pause) leaves the node, and comes back when the label does.
 */
public final class DaemonSetController implements AutoCloseable {
  private final KubernetesClient client;
  private final DaemonSet daemonSet;
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
    this.client = server.client();
    this.namespace = namespace;
    try {
      this.daemonSet = Serialization.unmarshal(Files.readString(manifest), DaemonSet.class);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Places and removes its pods five times a second. */
  public DaemonSetController start() {
    timer.scheduleWithFixedDelay(this::sync, 0, 200, TimeUnit.MILLISECONDS);
    return this;
  }

  /** The name of its pod on the node. */
  public String podOn(String node) {
    return daemonSet.getMetadata().getName() + "-" + Integer.toHexString(node.hashCode() & 0xfffff);
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
      Map<String, String> selector = daemonSet.getSpec().getTemplate().getSpec().getNodeSelector();
      for (Node n : client.nodes().list().getItems()) {
        Map<String, String> labels = n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        boolean matches = selector == null || labels.entrySet().containsAll(selector.entrySet());
        String name = n.getMetadata().getName();
        Pod pod = client.pods().inNamespace(namespace).withName(podOn(name)).get();
        if (matches && pod == null) {
          client.pods().inNamespace(namespace).resource(new PodBuilder().withNewMetadata().withName(podOn(name))
              .withNamespace(namespace).withLabels(daemonSet.getSpec().getTemplate().getMetadata().getLabels())
              .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet")
              .withName(daemonSet.getMetadata().getName()).withUid("uid-" + daemonSet.getMetadata().getName())
              .withController(true).endOwnerReference().endMetadata()
              .withNewSpec().withNodeName(name).addNewContainer().withName(daemonSet.getMetadata().getName())
              .withImage("sim").endContainer().endSpec().withNewStatus().withPhase("Running").endStatus().build()).create();
          history.add("placed " + name);
        } else if (!matches && pod != null) {
          client.pods().inNamespace(namespace).withName(podOn(name)).delete();
          history.add("removed " + name);
        }
      }
    } catch (RuntimeException e) {
      System.err.println("sim-daemonset-controller: " + e);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
    client.close();
  }
}
