package io.gpuremediator.action;

import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.yaml.snakeyaml.nodes.Node;

/**
 * One of a drain's {@code policies}: how the drain treats the pods it selects ({@code select: {namespace, labels}}, all
 * given must hold; the first policy that selects a pod is its). {@code evict} evicts at once; {@code
 * wait_for_completion} lets the pod run to its end (evicted at the {@code deadline} when one is given);
 * {@code wait_for_checkpoint} evicts once the pod carries its {@code checkpoint} ({@code annotation: KEY} present, or
 * {@code condition: TYPE} True), or at the {@code deadline}. Deadlines count from the drain's start; past the drain's
 * {@code timeout} its {@code mode} decides as for every pod. Evictions go through the Eviction API: budgets still hold.
 */
record DrainPolicy(Optional<String> namespace, Optional<LabelSelector> labels, Mode mode, Optional<Duration> deadline,
    Optional<Checkpoint> checkpoint) {
  /** What a policy does with its pods. */
  enum Mode {
    EVICT, WAIT_FOR_COMPLETION, WAIT_FOR_CHECKPOINT;

    String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** The mark a training job sets once its checkpoint is written: an annotation present, or a pod condition True. */
  record Checkpoint(boolean annotation, String name) {
    boolean on(PodInfo p) {
      return annotation ? p.annotations().containsKey(name) : p.conditions().contains(name);
    }

    String describe() {
      return (annotation ? "annotation " : "condition ") + name;
    }
  }

  private static final String ITEM = "drain action's policies item";

  /** Whether the policy selects the pod. */
  boolean selects(PodInfo p) {
    return namespace.map(p.namespace()::equals).orElse(true) && labels.map(l -> l.matches(p.labels())).orElse(true);
  }

  /**
   * Why the pod is not evicted yet (its checkpoint not there, its deadline not passed, it has not finished); empty: it
   * may be evicted now.
   */
  Optional<String> holds(PodInfo p, Instant started, Instant now) {
    if (mode == Mode.EVICT || deadline.filter(d -> !now.isBefore(started.plus(d))).isPresent()) {
      return Optional.empty();
    }
    if (mode == Mode.WAIT_FOR_CHECKPOINT && checkpoint.orElseThrow().on(p)) {
      return Optional.empty();
    }
    String until = deadline.map(d -> " until " + started.plus(d)).orElse(" (no deadline: the drain's timeout)");
    return Optional.of(p.ref() + " " + (mode == Mode.WAIT_FOR_CHECKPOINT ? "waits for its checkpoint ("
        + checkpoint.get().describe() + ")" : "runs to completion") + until);
  }

  /** The first of {@code policies} that selects the pod. */
  static Optional<DrainPolicy> of(List<DrainPolicy> policies, PodInfo p) {
    return policies.stream().filter(x -> x.selects(p)).findFirst();
  }

  /** Decodes {@code policies}; empty when any item is invalid (each problem named with its line). */
  static Optional<List<DrainPolicy>> decode(MapReader params, Duration timeout) {
    List<DrainPolicy> out = new ArrayList<>();
    Optional<List<Node>> items = params.list("policies");
    if (items.isEmpty()) {
      return params.has("policies") ? Optional.empty() : Optional.of(out);
    }
    int before = params.problems().messages().size();
    for (Node item : items.get()) {
      MapReader.of(item, ITEM, params.problems()).flatMap(m -> item(m, timeout)).ifPresent(out::add);
    }
    return params.problems().messages().size() == before ? Optional.of(out) : Optional.empty();
  }

  private static Optional<DrainPolicy> item(MapReader m, Duration timeout) {
    Optional<MapReader> select = m.map("select", ITEM + "'s select");
    Optional<String> namespace = select.flatMap(s -> s.string("namespace"));
    Optional<LabelSelector> labels = select.flatMap(s -> s.parsed("labels", LabelSelector::parse));
    select.ifPresent(MapReader::finish);
    if (select.isEmpty() || namespace.isEmpty() && labels.isEmpty()) {
      m.problems().add(m.node(), ITEM + ": \"select\" needs a namespace or labels (a label selector)");
    }
    Optional<Mode> mode = m.requiredString("mode").flatMap(text -> {
      for (Mode x : Mode.values()) {
        if (x.code().equals(text)) {
          return Optional.of(x);
        }
      }
      m.problems().add(m.at("mode"), ITEM + ": \"mode\" must be evict, wait_for_completion or wait_for_checkpoint, not \""
          + text + "\"");
      return Optional.empty();
    });
    Optional<Duration> deadline = m.parsed("deadline", Durations::parse);
    deadline.filter(d -> d.compareTo(timeout) > 0).ifPresent(d -> m.problems().add(m.at("deadline"), ITEM
        + ": \"deadline\" " + Durations.format(d) + " is past the drain's timeout " + Durations.format(timeout)));
    Optional<Checkpoint> checkpoint = m.map("checkpoint", ITEM + "'s checkpoint").flatMap(DrainPolicy::checkpoint);
    boolean checkpoints = mode.filter(x -> x == Mode.WAIT_FOR_CHECKPOINT).isPresent();
    if (checkpoints && (checkpoint.isEmpty() || deadline.isEmpty())) {
      m.problems().add(m.node(), ITEM + ": wait_for_checkpoint needs a checkpoint ({annotation: KEY} or {condition: TYPE})"
          + " and a deadline");
    } else if (!checkpoints && m.has("checkpoint")) {
      m.problems().add(m.at("checkpoint"), ITEM + ": \"checkpoint\" goes with mode wait_for_checkpoint only");
    }
    m.finish();
    return mode.map(x -> new DrainPolicy(namespace, labels, x, deadline, checkpoint));
  }

  private static Optional<Checkpoint> checkpoint(MapReader c) {
    Optional<String> annotation = c.string("annotation");
    Optional<String> condition = c.string("condition");
    c.finish();
    if (annotation.isPresent() == condition.isPresent()) {
      c.problems().add(c.node(), ITEM + "'s checkpoint: give exactly one of annotation: KEY, condition: TYPE");
      return Optional.empty();
    }
    return Optional.of(annotation.map(a -> new Checkpoint(true, a)).orElseGet(() -> new Checkpoint(false, condition.get())));
  }
}
