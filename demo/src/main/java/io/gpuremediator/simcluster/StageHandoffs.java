package io.gpuremediator.simcluster;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * The remediator's stage handoffs as the API server sees them, from watches of its own: from the event that ends a step
 * to the remediator's next write about that node. A step ends when a Job of a step completes or fails (a reboot's Job
 * excepted: its step ends when the node comes back), when a node comes back Ready with a new bootID, when the last pod
 * that a drain moves leaves a draining node, or when a Node with an episode is deleted. The next write is the first of:
 * a change of the node's ledger annotation, a Job created for the node, an Event about the node by the remediator. Both
 * ends are stamped when this process's watches deliver them, so the watch delays on each side largely cancel out.
 */
public final class StageHandoffs implements AutoCloseable {
  private static final String LEDGER = "gpu-remediator.io/state";
  private static final String STEP_LABEL = "gpu-remediator.io/step";
  private static final String COMPONENT = "gpu-remediator";
  private static final String DRAINING = "\"stage\":\"draining\"";

  /** One handoff: what ended the step, on which node, and how long until the next write. */
  public record Sample(String node, String ended, double seconds) {}

  /**
   * An end seen, waiting for the next write; {@code leavesDraining}: only a ledger write that leaves the draining stage
   * counts (the look that evicted the last pod may still write its own note after the pod left).
   */
  private record Pending(String ended, long nanos, boolean leavesDraining) {}

  private final Map<String, Pending> pending = new ConcurrentHashMap<>();
  private final Map<String, String> ledgers = new ConcurrentHashMap<>();
  private final Map<String, String> boots = new ConcurrentHashMap<>();
  private final Map<String, Set<String>> podsByNode = new ConcurrentHashMap<>();
  private final Set<String> knownJobs = ConcurrentHashMap.newKeySet();
  private final Set<String> endedJobs = ConcurrentHashMap.newKeySet();
  private final Set<String> events = ConcurrentHashMap.newKeySet();
  private final List<Sample> samples = Collections.synchronizedList(new ArrayList<>());
  private final List<SharedIndexInformer<?>> informers = new ArrayList<>();

  /** Starts watching; call {@link #samples()} for what it saw, and close it at the end. */
  public StageHandoffs(KubernetesClient client, String jobNamespace) {
    informers.add(client.pods().inAnyNamespace().inform(handler(this::pod, this::podGone)));
    informers.add(client.batch().v1().jobs().inNamespace(jobNamespace).inform(handler(this::job, j -> { })));
    informers.add(client.v1().events().inAnyNamespace().inform(handler(this::event, e -> { })));
    informers.add(client.nodes().inform(handler(this::node, this::nodeGone)));
  }

  private static <T> ResourceEventHandler<T> handler(Consumer<T> seen, Consumer<T> gone) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {
        seen.accept(obj);
      }

      @Override
      public void onUpdate(T old, T obj) {
        seen.accept(obj);
      }

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        gone.accept(obj);
      }
    };
  }

  private void node(Node n) {
    String name = n.getMetadata().getName();
    String ledger = n.getMetadata().getAnnotations() == null ? "" : n.getMetadata().getAnnotations().getOrDefault(LEDGER, "");
    String before = ledgers.put(name, ledger);
    if (before != null && !before.equals(ledger)) {
      Pending p = pending.get(name);
      if (p == null || !p.leavesDraining() || !ledger.contains(DRAINING)) {
        wrote(name);
      }
    }
    String boot = n.getStatus() == null || n.getStatus().getNodeInfo() == null ? "" : n.getStatus().getNodeInfo().getBootID();
    boolean ready = n.getStatus() != null && n.getStatus().getConditions() != null && n.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    String known = boots.putIfAbsent(name, boot);
    if (known != null && !known.equals(boot) && ready) {
      boots.put(name, boot);
      ended(name, "node booted");
    }
  }

  private void nodeGone(Node n) {
    String name = n.getMetadata().getName();
    if (ledgers.getOrDefault(name, "").contains("\"episodes\":{\"")) {
      ended(name, "Node deleted");
    }
    ledgers.remove(name);
  }

  private void job(Job j) {
    String node = j.getSpec() == null || j.getSpec().getTemplate().getSpec() == null ? null
        : j.getSpec().getTemplate().getSpec().getNodeName();
    if (node == null) {
      return;
    }
    if (knownJobs.add(j.getMetadata().getUid())) {
      wroteOther(node); // a Job's first sighting is a write: the remediator created it
    }
    boolean over = j.getStatus() != null && j.getStatus().getConditions() != null && j.getStatus().getConditions().stream()
        .anyMatch(c -> ("Complete".equals(c.getType()) || "Failed".equals(c.getType())) && "True".equals(c.getStatus()));
    String step = j.getMetadata().getLabels() == null ? "" : j.getMetadata().getLabels().getOrDefault(STEP_LABEL, "");
    if (over && endedJobs.add(j.getMetadata().getUid()) && !"reboot".equals(step)) {
      ended(node, step + " Job " + (j.getStatus().getConditions().stream().anyMatch(c -> "Failed".equals(c.getType()))
          ? "failed" : "completed"));
    }
  }

  private void event(Event e) {
    boolean ours = e.getSource() != null && COMPONENT.equals(e.getSource().getComponent())
        || COMPONENT.equals(e.getReportingComponent());
    if (ours && e.getInvolvedObject() != null && "Node".equals(e.getInvolvedObject().getKind())
        && seenEvent(e)) {
      wroteOther(e.getInvolvedObject().getName());
    }
  }

  private boolean seenEvent(Event e) {
    return events.add(e.getMetadata().getNamespace() + "/" + e.getMetadata().getName());
  }

  private void pod(Pod p) {
    String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
    if (node == null || !moves(p)) {
      podGone(p);
      return;
    }
    podsByNode.computeIfAbsent(node, k -> ConcurrentHashMap.newKeySet()).add(key(p));
  }

  private void podGone(Pod p) {
    String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
    Set<String> on = node == null ? null : podsByNode.get(node);
    if (on != null && on.remove(key(p)) && on.isEmpty() && ledgers.getOrDefault(node, "").contains(DRAINING)) {
      pending.put(node, new Pending("last pod left", System.nanoTime(), true));
    }
  }

  /** The pods a drain moves: not a DaemonSet's, not finished. */
  private static boolean moves(Pod p) {
    List<OwnerReference> owners = p.getMetadata().getOwnerReferences() == null ? List.of() : p.getMetadata().getOwnerReferences();
    String phase = p.getStatus() == null ? "" : Objects.toString(p.getStatus().getPhase(), "");
    return owners.stream().noneMatch(o -> "DaemonSet".equals(o.getKind())) && !phase.equals("Succeeded")
        && !phase.equals("Failed");
  }

  private static String key(Pod p) {
    return p.getMetadata().getNamespace() + "/" + p.getMetadata().getName();
  }

  private void ended(String node, String what) {
    pending.put(node, new Pending(what, System.nanoTime(), false));
  }

  /** A Job or an Event about the node: the next write, unless the end waits for the ledger to leave draining. */
  private void wroteOther(String node) {
    Pending p = pending.get(node);
    if (p != null && !p.leavesDraining()) {
      wrote(node);
    }
  }

  private void wrote(String node) {
    Pending p = pending.remove(node);
    if (p != null) {
      samples.add(new Sample(node, p.ended(), (System.nanoTime() - p.nanos()) / 1e9));
    }
  }

  /** The handoffs seen so far. */
  public List<Sample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  /** Step ends still waiting for a write (a step the remediator has not handed off). */
  public Map<String, String> waiting() {
    Map<String, String> out = new TreeMap<>();
    pending.forEach((node, p) -> out.put(node, p.ended() + String.format(Locale.ROOT, " %.1f s ago",
        (System.nanoTime() - p.nanos()) / 1e9)));
    return out;
  }

  /**
   * A line per kind of end and one for all: count, p50, p99, max; and whether p99 is under {@code targetSeconds}.
   */
  public static List<String> report(List<Sample> samples, double targetSeconds) {
    List<String> lines = new ArrayList<>();
    Map<String, List<Double>> byKind = new TreeMap<>();
    samples.forEach(s -> byKind.computeIfAbsent(s.ended(), k -> new ArrayList<>()).add(s.seconds()));
    byKind.forEach((kind, seconds) -> lines.add("  " + line(kind, seconds)));
    List<Double> all = samples.stream().map(Sample::seconds).toList();
    double p99 = percentile(all, 0.99);
    lines.add(line("every handoff", all) + String.format(Locale.ROOT, "; target p99 < %.0f s -> %s", targetSeconds,
        !all.isEmpty() && p99 < targetSeconds ? "MET" : "NOT MET"));
    return lines;
  }

  private static String line(String kind, List<Double> seconds) {
    return String.format(Locale.ROOT, "%-28s %4d handoffs: p50 %.3f s, p99 %.3f s, max %.3f s", kind + ":", seconds.size(),
        percentile(seconds, 0.5), percentile(seconds, 0.99), percentile(seconds, 1.0));
  }

  private static double percentile(List<Double> values, double q) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get(Math.max(0, (int) Math.ceil(sorted.size() * q) - 1));
  }

  @Override
  public void close() {
    informers.forEach(SharedIndexInformer::stop);
  }
}
