package io.gpuremediator.node;

import io.gpuremediator.yaml.MapReader.Parsed;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A Kubernetes label selector ({@code k=v}, {@code k==v}, {@code k!=v}, {@code k}, {@code !k}, and the set-based
 * {@code k in (a, b)} and {@code k notin (a, b)}; comma-separated, all must hold), evaluated locally against a node's
 * labels; or several such selectors of which any may hold ({@code node_selector} as a list: GPU and Neuron nodes are
 * labelled differently by GPU Feature Discovery, GKE, AKS, Karpenter and EKS node groups, and no one label selector can
 * say "any of these").
 */
public record LabelSelector(String text, List<List<Requirement>> alternatives) {
  /**
   * The GPU labels of GPU Feature Discovery (GPU Operator), GKE GPU node pools, AKS GPU node pools, Karpenter on EKS, and
   * EKS node groups labelled for the cluster autoscaler.
   */
  public static final List<String> GPU_NODES = List.of("nvidia.com/gpu.present=true", "cloud.google.com/gke-accelerator",
      "kubernetes.azure.com/accelerator=nvidia", "karpenter.k8s.aws/instance-gpu-manufacturer=nvidia", "k8s.amazonaws.com/accelerator");
  /**
   * AWS Neuron (Trainium, Inferentia) nodes as EKS labels them: Karpenter's accelerator manufacturer, and for managed
   * node groups and eksctl, which add no accelerator label, the instance type, as AWS's own Neuron manifests select
   * them (the types of the CloudWatch Observability add-on's neuron-monitor affinity, SageMaker HyperPod's ml. types
   * among them, and of the Neuron Helm chart's).
   */
  public static final List<String> NEURON_NODES = List.of("karpenter.k8s.aws/instance-accelerator-manufacturer=aws",
      "node.kubernetes.io/instance-type in (trn1.2xlarge, trn1.32xlarge, trn1n.32xlarge, trn2.3xlarge, trn2.48xlarge,"
          + " trn2a.48xlarge, trn2n.48xlarge, trn2u.48xlarge, inf1.xlarge, inf1.2xlarge, inf1.6xlarge, inf1.24xlarge,"
          + " inf2.xlarge, inf2.8xlarge, inf2.24xlarge, inf2.48xlarge, inf2e.32xlarge, ml.trn1.2xlarge, ml.trn1.32xlarge, ml.trn1n.32xlarge,"
          + " ml.inf1.xlarge, ml.inf1.2xlarge, ml.inf1.6xlarge, ml.inf1.24xlarge, ml.inf2.xlarge, ml.inf2.8xlarge,"
          + " ml.inf2.24xlarge, ml.inf2.48xlarge)");

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
   * requirement. A list of several cannot (the API has no "or"; the default is a list), nor can an empty selector, which
   * selects every node.
   */
  public Optional<String> apiSelector() {
    if (alternatives.size() != 1 || alternatives.get(0).isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(String.join(",", alternatives.get(0).stream().map(Requirement::toString).toList()));
  }

  /** The selector {@link #apiSelector} wrote, read back; empty when the text is not one. */
  public static Optional<LabelSelector> fromApiSelector(String text) {
    return Optional.ofNullable(parse(text).value());
  }

  /** The default selector: {@link #GPU_NODES} and {@link #NEURON_NODES}. */
  public static LabelSelector gpuNodes() {
    return anyOf(Stream.concat(GPU_NODES.stream(), NEURON_NODES.stream()).map(t -> parse(t).value()).toList());
  }

  /** One requirement of a selector; {@code values} holds the set of {@code in} and {@code notin}, {@code value} the rest's. */
  public record Requirement(String key, Op op, String value, List<String> values) {
    /** Copies the values. */
    public Requirement {
      values = List.copyOf(values);
    }

    Requirement(String key, Op op, String value) {
      this(key, op, value, List.of());
    }

    /** The requirement in the API server's syntax. */
    @Override
    public String toString() {
      return switch (op) {
        case EQUALS -> key + "=" + value;
        case NOT_EQUALS -> key + "!=" + value;
        case EXISTS -> key;
        case NOT_EXISTS -> "!" + key;
        case IN -> key + " in (" + String.join(",", values) + ")";
        case NOT_IN -> key + " notin (" + String.join(",", values) + ")";
      };
    }
  }

  /** The operators supported. */
  public enum Op { EQUALS, NOT_EQUALS, EXISTS, NOT_EXISTS, IN, NOT_IN }

  private static final Pattern SET_BASED = Pattern.compile("(\\S+)\\s+(in|notin)\\s*\\(([^()]*)\\)");

  /** Parses a selector; an empty string selects every node. */
  public static Parsed<LabelSelector> parse(String text) {
    List<Requirement> reqs = new ArrayList<>();
    if (!text.isBlank()) {
      for (String raw : text.split(",(?![^()]*\\))", -1)) {
        String part = raw.strip();
        Requirement r = parseOne(part);
        if (r == null) {
          return Parsed.error("\"" + part + "\" is not a label selector requirement (key=value, key!=value, key, !key,"
              + " key in (v1, v2) or key notin (v1, v2))");
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
    Matcher set = SET_BASED.matcher(part);
    if (set.matches()) {
      List<String> values = Arrays.stream(set.group(3).split(",")).map(String::strip).toList();
      if (values.stream().anyMatch(v -> !FieldRule.LABEL_VALUE.accepts(v) || v.isEmpty())) {
        return null;
      }
      r = new Requirement(set.group(1), set.group(2).equals("in") ? Op.IN : Op.NOT_IN, "", values);
    } else if (ne > 0) {
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
        case IN -> actual != null && r.values().contains(actual);
        case NOT_IN -> actual == null || !r.values().contains(actual);
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
