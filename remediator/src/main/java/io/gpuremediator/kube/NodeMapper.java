package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAddress;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeSpec;
import io.fabric8.kubernetes.api.model.NodeSpecBuilder;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.gpuremediator.node.InternalIp;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeCondition;
import io.gpuremediator.node.NodeIdentity;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.node.Taint;
import io.gpuremediator.node.TaintEffect;
import io.gpuremediator.state.NodeLedger;
import java.time.DateTimeException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/** Converts between fabric8 Nodes and {@link NodeInfo}, keeping every field we do not model intact. */
final class NodeMapper {
  /** The device plugins' accelerator resources, in order: NVIDIA's GPUs, else AWS Neuron devices. */
  private static final List<String> ACCELERATOR_RESOURCES = List.of("nvidia.com/gpu", "aws.amazon.com/neuron");

  private NodeMapper() {}

  /** Which machine the node is: its {@code spec.providerID} and {@code status.nodeInfo.systemUUID}, each if stated. */
  static NodeIdentity identity(Node node) {
    return new NodeIdentity(Optional.ofNullable(node.getSpec()).map(s -> s.getProviderID()).filter(p -> !p.isEmpty()),
        Optional.ofNullable(node.getStatus()).map(s -> s.getNodeInfo()).map(i -> i.getSystemUUID())
            .filter(u -> !u.isBlank()));
  }

  /** The node as the remediator sees it. */
  static NodeInfo toInfo(Node node, LedgerSeal seal) {
    Map<String, String> labels = orEmpty(node.getMetadata().getLabels());
    Map<String, String> annotations = orEmpty(node.getMetadata().getAnnotations());
    List<Taint> taints = new ArrayList<>();
    boolean unschedulable = false;
    if (node.getSpec() != null) {
      unschedulable = Boolean.TRUE.equals(node.getSpec().getUnschedulable());
      if (node.getSpec().getTaints() != null) {
        for (var t : node.getSpec().getTaints()) {
          TaintEffect.fromApiName(Objects.toString(t.getEffect(), ""))
              .ifPresent(e -> taints.add(new Taint(t.getKey(), Objects.toString(t.getValue(), ""), e)));
        }
      }
    }
    List<NodeCondition> conditions = new ArrayList<>();
    List<String> ips = new ArrayList<>();
    String bootId = "";
    if (node.getStatus() != null) {
      if (node.getStatus().getNodeInfo() != null) {
        bootId = Objects.toString(node.getStatus().getNodeInfo().getBootID(), "");
      }
      if (node.getStatus().getConditions() != null) {
        node.getStatus().getConditions().forEach(c -> conditions.add(toModel(c.getType(), c.getStatus(), c.getReason(),
            c.getMessage(), c.getLastTransitionTime(), c.getLastHeartbeatTime())));
      }
      if (node.getStatus().getAddresses() != null) {
        for (NodeAddress a : node.getStatus().getAddresses()) {
          if ("InternalIP".equals(a.getType()) && a.getAddress() != null) {
            InternalIp.normalize(a.getAddress()).ifPresent(ips::add);
          }
        }
      }
    }
    String name = node.getMetadata().getName();
    String stored = annotations.get(NodeKeys.LEDGER_ANNOTATION);
    Ledger ledger = stored == null ? new Ledger(NodeLedger.EMPTY, Optional.empty()) : ledger(name, stored, seal);
    return new NodeInfo(node.getMetadata().getName(), labels, annotations, taints, unschedulable, conditions, ips, bootId,
        node.getMetadata().getResourceVersion(), ledger.ledger(), ledger.fault(), gpuCapacity(node));
  }

  private record Ledger(NodeLedger ledger, Optional<LedgerFault> fault) {}

  /** The ledger an annotation holds: signed and verified; unsigned (decoded, for the caller to trust or not); or not. */
  private static Ledger ledger(String node, String stored, LedgerSeal seal) {
    String annotation = "annotation " + NodeKeys.LEDGER_ANNOTATION + " on node " + node;
    try {
      LedgerSeal.Opened opened = seal.open(node, stored);
      NodeLedger ledger = LedgerCodec.decode(opened.json());
      return new Ledger(ledger, opened.signed() ? Optional.empty() : Optional.of(new LedgerFault(LedgerFault.Kind.UNSIGNED,
          annotation + " is not signed: not written by this service since its ledgers are signed; not acted on, and"
          + " nothing it names is deleted; remove it by hand")));
    } catch (LedgerSeal.Untrusted e) {
      return new Ledger(NodeLedger.EMPTY, Optional.of(new LedgerFault(LedgerFault.Kind.UNTRUSTED, annotation + " "
          + e.getMessage() + ": not written by this service; not acted on, and nothing it names is deleted; remove it by"
          + " hand")));
    } catch (IllegalArgumentException e) {
      return new Ledger(NodeLedger.EMPTY, Optional.of(new LedgerFault(LedgerFault.Kind.UNREADABLE, annotation
          + " is unreadable (" + e.getMessage() + "); fix or remove it by hand")));
    }
  }

  /**
   * The node's accelerator capacity as a whole number: {@code nvidia.com/gpu}, else {@code aws.amazon.com/neuron} (a
   * Neuron node's devices); 0 when it has neither (or none that reads as one).
   */
  private static int gpuCapacity(Node node) {
    if (node.getStatus() == null || node.getStatus().getCapacity() == null) {
      return 0;
    }
    for (String resource : ACCELERATOR_RESOURCES) {
      Quantity q = node.getStatus().getCapacity().get(resource);
      String amount = q == null ? "" : q.getAmount() + (q.getFormat() == null ? "" : q.getFormat());
      if (amount.matches("[0-9]{1,4}") && Integer.parseInt(amount) > 0) {
        return Integer.parseInt(amount);
      }
    }
    return 0;
  }

  /** {@code fresh} with the metadata and spec of {@code edited}: labels, annotations, ledger, taints, cordon. */
  static Node withSpec(Node fresh, NodeInfo edited, LedgerSeal seal) {
    Map<String, String> annotations = new LinkedHashMap<>(edited.annotations());
    Map<String, String> labels = new LinkedHashMap<>(edited.labels());
    // A ledger we do not act on is left as stored, with its label, for an operator to read: never replaced nor removed.
    boolean keepStored = edited.ledgerFault().filter(f -> f.kind() != LedgerFault.Kind.UNSIGNED).isPresent();
    if (keepStored) {
      Optional.ofNullable(fresh.getMetadata().getAnnotations()).map(a -> a.get(NodeKeys.LEDGER_ANNOTATION)).ifPresentOrElse(
          stored -> annotations.put(NodeKeys.LEDGER_ANNOTATION, stored), () -> annotations.remove(NodeKeys.LEDGER_ANNOTATION));
    } else if (edited.ledger().isEmpty()) {
      annotations.remove(NodeKeys.LEDGER_ANNOTATION);
      labels.remove(NodeKeys.MANAGED_LABEL);
    } else {
      annotations.put(NodeKeys.LEDGER_ANNOTATION, seal.sealed(edited.name(), LedgerCodec.encode(edited.ledger())));
      labels.put(NodeKeys.MANAGED_LABEL, "true"); // with the ledger, in the same write: see NodeWatch
    }
    var old = Optional.ofNullable(fresh.getSpec()).map(NodeSpec::getTaints).orElse(List.of());
    // Reuse the stored object where it is unchanged, so fields we do not model (timeAdded) survive.
    var taints = edited.taints().stream().map(t -> old.stream()
        .filter(o -> t.key().equals(o.getKey()) && t.effect().apiName().equals(o.getEffect())
            && t.value().equals(Objects.toString(o.getValue(), "")))
        .findFirst()
        .orElseGet(() -> new TaintBuilder().withEffect(t.effect().apiName()).withKey(t.key())
            .withValue(t.value().isEmpty() ? null : t.value()).build())).toList();
    ObjectMeta metadata = new ObjectMetaBuilder(fresh.getMetadata()).withLabels(labels).withAnnotations(annotations).build();
    NodeSpec spec = new NodeSpecBuilder(Optional.ofNullable(fresh.getSpec()).orElseGet(NodeSpec::new)).withTaints(taints)
        .withUnschedulable(edited.unschedulable() ? Boolean.TRUE : null).build();
    // The status is shared, not copied: an update ignores it and nothing changes it, and a real node's images,
    // conditions and capacities are most of what a copy would cost.
    Node next = new Node(fresh.getApiVersion(), fresh.getKind(), metadata, spec, fresh.getStatus());
    fresh.getAdditionalProperties().forEach(next::setAdditionalProperty);
    return next;
  }

  /** The conditions the edit set or changed, by type. */
  static Map<String, NodeCondition> changedConditions(NodeInfo before, NodeInfo after) {
    Map<String, NodeCondition> changed = new LinkedHashMap<>();
    for (NodeCondition c : after.conditions()) {
      if (!before.conditions().contains(c)) {
        changed.put(c.type(), c);
      }
    }
    return changed;
  }

  /** {@code fresh} with the conditions of {@code edited}, reusing unchanged condition objects. */
  static Node withConditions(Node fresh, NodeInfo edited) {
    var old = Optional.ofNullable(fresh.getStatus()).map(NodeStatus::getConditions).orElse(List.of());
    var next = edited.conditions().stream().map(c -> old.stream().filter(o -> c.equals(toModel(o.getType(), o.getStatus(),
        o.getReason(), o.getMessage(), o.getLastTransitionTime(), o.getLastHeartbeatTime()))).findFirst()
        .orElseGet(() -> new NodeConditionBuilder().withLastHeartbeatTime(format(c.lastHeartbeatTime()))
            .withLastTransitionTime(format(c.lastTransitionTime())).withMessage(c.message().isEmpty() ? null : c.message())
            .withReason(c.reason().isEmpty() ? null : c.reason()).withStatus(c.status()).withType(c.type()).build()))
        .toList();
    return new NodeBuilder(fresh).editOrNewStatus().withConditions(next).endStatus().build();
  }

  /** Whether the metadata/spec part differs (the managed label follows the ledger). */
  static boolean specDiffers(NodeInfo a, NodeInfo b) {
    return !labelsWithoutManaged(a).equals(labelsWithoutManaged(b)) || !annotationsWithoutLedger(a).equals(annotationsWithoutLedger(b))
        || !a.ledger().equals(b.ledger()) || !a.taints().equals(b.taints()) || a.unschedulable() != b.unschedulable();
  }

  private static Map<String, String> labelsWithoutManaged(NodeInfo n) {
    if (!n.labels().containsKey(NodeKeys.MANAGED_LABEL)) {
      return n.labels();
    }
    Map<String, String> copy = new LinkedHashMap<>(n.labels());
    copy.remove(NodeKeys.MANAGED_LABEL);
    return copy;
  }

  private static Map<String, String> annotationsWithoutLedger(NodeInfo n) {
    Map<String, String> copy = new LinkedHashMap<>(n.annotations());
    copy.remove(NodeKeys.LEDGER_ANNOTATION);
    return copy;
  }

  private static NodeCondition toModel(String type, String status, String reason, String message, String transition,
      String heartbeat) {
    return new NodeCondition(type, status, reason, message, time(transition), time(heartbeat));
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }

  private static Instant time(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return plainUtc(text);
    } catch (DateTimeException | NumberFormatException e) {
      // Not the plain form, or not a valid date: the full parser decides.
    }
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  /**
   * The API server's own form, {@code 2026-11-27T23:27:07Z}, read without the general parser: a node carries a dozen
   * such times and every watch event of it is read. Throws on any other form (then {@link Instant#parse} reads it).
   */
  static Instant plainUtc(String text) {
    if (text.length() != 20 || text.charAt(4) != '-' || text.charAt(7) != '-' || text.charAt(10) != 'T'
        || text.charAt(13) != ':' || text.charAt(16) != ':' || text.charAt(19) != 'Z') {
      throw new DateTimeException("not the plain UTC form");
    }
    return LocalDateTime.of(digits(text, 0, 4), digits(text, 5, 7), digits(text, 8, 10), digits(text, 11, 13),
        digits(text, 14, 16), digits(text, 17, 19)).toInstant(ZoneOffset.UTC);
  }

  private static int digits(String text, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        throw new NumberFormatException(text);
      }
      n = n * 10 + (c - '0');
    }
    return n;
  }

  private static String format(Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
