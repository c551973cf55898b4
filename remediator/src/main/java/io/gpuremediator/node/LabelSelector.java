package io.gpuremediator.node;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * An equality-based Kubernetes label selector ({@code k=v}, {@code k==v}, {@code k!=v}, {@code k},
 * {@code !k}, comma-separated, all must hold), evaluated locally against a node's labels; or several such
 * selectors of which any may hold ({@code node_selector} as a list: GPU nodes are labelled differently by GPU
 * Feature Discovery, GKE, AKS and Karpenter, and no one label selector can say "any of these").
 */
public record LabelSelector(String text, List<List<Requirement>> alternatives) {
  /**
   * The default {@code node_selector}: the GPU labels of GPU Feature Discovery (GPU Operator), GKE GPU node pools, AKS GPU
   * node pools, Karpenter on EKS, and EKS node groups labelled for the cluster autoscaler.
   */
  public static final List<String> GPU_NODES = List.of("nvidia.com/gpu.present=true", "cloud.google.com/gke-accelerator",
      "kubernetes.azure.com/accelerator=nvidia", "karpenter.k8s.aws/instance-gpu-manufacturer=nvidia", "k8s.amazonaws.com/accelerator");

  /** Makes defensive copies. */
  public LabelSelector {
    Objects.requireNonNull(text, "text");
    alternatives = alternatives.stream().map(List::copyOf).toList();
  }

  /** The requirements of the first alternative (all of them, for a selector of one). */
  public List<Requirement> requirements() {
    return alternatives.isEmpty() ? List.of() : alternatives.get(0);
  }

  /** A selector that holds when any of {@code selectors} does; printed as a YAML flow list. */
  public static LabelSelector anyOf(List<LabelSelector> selectors) {
    if (selectors.size() == 1) {
      return selectors.get(0);
    }
    List<List<Requirement>> all = new ArrayList<>();
    selectors.forEach(s -> all.addAll(s.alternatives()));
    return new LabelSelector(selectors.stream().map(LabelSelector::text).toList().toString(), all);
  }

  /**
   * This selector in the API server's label selector syntax, when it can say it: one alternative with at least one
   * requirement. A list of several cannot (the API has no "or"), nor can an empty selector, which selects every node.
   */
  public Optional<String> apiSelector() {
    if (alternatives.size() != 1 || alternatives.get(0).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.join(",", alternatives.get(0).stream().map(r -> switch (r.op()) {
      case EQUALS -> r.key() + "=" + r.value();
      case NOT_EQUALS -> r.key() + "!=" + r.value();
      case EXISTS -> r.key();
      case NOT_EXISTS -> "!" + r.key();
    }).toList()));
  }

  /** The default selector, {@link #GPU_NODES}. */
  public static LabelSelector gpuNodes() {
    return anyOf(GPU_NODES.stream().map(t -> parse(t).value()).toList());
  }

  /** One requirement of a selector. */
  public record Requirement(String key, Op op, String value) {}

  /** The operators supported. */
  public enum Op { EQUALS, NOT_EQUALS, EXISTS, NOT_EXISTS }

  /** Parses a selector; an empty string selects every node. */
  public static Parsed<LabelSelector> parse(String text) {
    List<Requirement> reqs = new ArrayList<>();
    if (!text.isBlank()) {
      for (String raw : text.split(",", -1)) {
        String part = raw.strip();
        Requirement r = parseOne(part);
        if (r == null) {
          return Parsed.error("\"" + part + "\" is not a label selector requirement (key=value, key!=value, key or !key)");
        }
        reqs.add(r);
      }
    }
    return Parsed.ok(new LabelSelector(text.strip(), List.of(reqs)));
  }

  private static Requirement parseOne(String part) {
    Requirement r;
    int ne = part.indexOf("!=");
    int eq = part.indexOf('=');
    if (ne > 0) {
      r = new Requirement(part.substring(0, ne).strip(), Op.NOT_EQUALS, part.substring(ne + 2).strip());
    } else if (eq > 0) {
      int valueStart = part.startsWith("==", eq) ? eq + 2 : eq + 1;
      r = new Requirement(part.substring(0, eq).strip(), Op.EQUALS, part.substring(valueStart).strip());
    } else if (part.startsWith("!")) {
      r = new Requirement(part.substring(1).strip(), Op.NOT_EXISTS, "");
    } else {
      r = new Requirement(part, Op.EXISTS, "");
    }
    boolean valid = FieldRule.QUALIFIED_NAME.accepts(r.key()) && FieldRule.LABEL_VALUE.accepts(r.value());
    return valid ? r : null;
  }

  /** Whether a node with these labels is selected: every requirement of one alternative holds. */
  public boolean matches(Map<String, String> labels) {
    for (List<Requirement> alternative : alternatives) {
      if (allHold(alternative, labels)) {
        return true;
      }
    }
    return alternatives.isEmpty();
  }

  private static boolean allHold(List<Requirement> requirements, Map<String, String> labels) {
    for (Requirement r : requirements) {
      String actual = labels.get(r.key());
      boolean ok = switch (r.op()) {
        case EQUALS -> r.value().equals(actual);
        case NOT_EQUALS -> !r.value().equals(actual);
        case EXISTS -> actual != null;
        case NOT_EXISTS -> actual == null;
      };
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return text;
  }
}
