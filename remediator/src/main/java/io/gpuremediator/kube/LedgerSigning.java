package io.gpuremediator.kube;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.node.LedgerFault;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.threads.DaemonThreads;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which ledgers are ours. A signed ledger is ours when it verifies ({@link LedgerSeal}). An unsigned one was written by
 * an earlier release, or by whoever can write the Node: it is trusted only until the leader has re-signed, once, every
 * unsigned ledger it found, and recorded so (key {@value #MARKER} of the fleet state's ConfigMap, which no kubelet can
 * write). Until that record is read, an unsigned ledger is not trusted either, and the adapter is not ready.
 */
final class LedgerSigning {
  private static final Logger LOGGER = LoggerFactory.getLogger(LedgerSigning.class);
  static final String MARKER = "ledgers-signed-since";

  private enum State { UNKNOWN, TRUSTING_UNSIGNED, SIGNED_ONLY }

  /** Where the record of the re-signing lives. */
  record Record(String namespace, String configMap) {}

  /**
   * The adapter's nodes as a round needs them: whether the watch has listed them all, the names of those with an
   * unsigned ledger, each as stored, and where the answer of a write goes.
   */
  record Nodes(BooleanSupplier listed, Supplier<List<String>> unsigned, Function<String, Optional<Node>> stored,
      UnaryOperator<Node> written) {}

  private static final long ROUND_MILLIS = 2000;

  private final LedgerSeal seal;
  private final Optional<Record> record;
  private final Clock clock;
  private volatile State state;
  private volatile BooleanSupplier mayWrite = () -> false;
  private ScheduledExecutorService rounds;

  private LedgerSigning(LedgerSeal seal, Optional<Record> record, Clock clock, State state) {
    this.seal = seal;
    this.record = record;
    this.clock = clock;
    this.state = state;
  }

  /** Every ledger must be signed (no earlier release's to read). */
  static LedgerSigning signedOnly(LedgerSeal seal) {
    return new LedgerSigning(seal, Optional.empty(), Clock.systemUTC(), State.SIGNED_ONLY);
  }

  /** Unsigned ledgers are trusted until {@code record} says they were re-signed; {@link #settle} re-signs them. */
  static LedgerSigning reSigningOnce(LedgerSeal seal, Record record, Clock clock) {
    return new LedgerSigning(seal, Optional.of(record), clock, State.UNKNOWN);
  }

  /** Every ledger read as it is, signed or not: for a reading that acts on nothing (a backtest, nodes from files). */
  static LedgerSigning readOnly() {
    return new LedgerSigning(LedgerSeal.offline(), Optional.empty(), Clock.systemUTC(), State.TRUSTING_UNSIGNED);
  }

  LedgerSeal seal() {
    return seal;
  }

  /** Whether this instance may write the re-signing (it leads, and is not a dry-run). */
  void mayWrite(BooleanSupplier mayWrite) {
    this.mayWrite = mayWrite;
  }

  /** Whether it is known which ledgers are trusted (until then, none unsigned is). */
  boolean isSettled() {
    return state != State.UNKNOWN;
  }

  /** Whether nothing is left to do: the record is read, and says the unsigned ledgers were re-signed. */
  boolean isDone() {
    return state == State.SIGNED_ONLY;
  }

  /** The node as the rest of the service sees it: an unsigned ledger handed out as ours, or as not ours. */
  NodeInfo handOut(NodeInfo info) {
    Optional<LedgerFault> fault = info.ledgerFault();
    if (fault.isEmpty() || fault.get().kind() != LedgerFault.Kind.UNSIGNED) {
      return info;
    }
    return state == State.TRUSTING_UNSIGNED ? info.withLedger(info.ledger(), Optional.empty())
        : info.withLedger(NodeLedger.EMPTY, Optional.of(new LedgerFault(LedgerFault.Kind.UNTRUSTED,
            fault.get().message())));
  }

  /** Starts a round every {@value #ROUND_MILLIS} ms until the record is read and says the re-signing is done. */
  synchronized void start(KubernetesClient client, ApiThrottle throttle, Nodes nodes) {
    if (record.isEmpty() || isDone() || rounds != null) {
      return;
    }
    rounds = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("remediator-ledger-signing"));
    rounds.scheduleWithFixedDelay(() -> {
      settle(client, throttle, nodes);
      if (isDone()) {
        rounds.shutdown();
      }
    }, 0, ROUND_MILLIS, TimeUnit.MILLISECONDS);
  }

  synchronized void close() {
    if (rounds != null) {
      rounds.shutdownNow();
    }
  }

  /**
   * One round: reads the record; when there is none, this instance may write and the watch has listed every node,
   * re-signs each unsigned ledger, then writes the record. A round that fails is tried again at the next.
   */
  void settle(KubernetesClient client, ApiThrottle throttle, Nodes nodes) {
    if (state == State.SIGNED_ONLY || record.isEmpty()) {
      return;
    }
    Record r = record.get();
    try {
      ConfigMap cm = throttle.read(() -> client.configMaps().inNamespace(r.namespace()).withName(r.configMap()).get());
      if (cm != null && cm.getData() != null && cm.getData().containsKey(MARKER)) {
        state = State.SIGNED_ONLY;
        return;
      }
      if (state == State.UNKNOWN) {
        LOGGER.warn("no ledger has been signed yet (no {} in ConfigMap {}/{}): unsigned ledgers, an earlier release's, are"
            + " trusted until the leader has re-signed them", MARKER, r.namespace(), r.configMap());
        state = State.TRUSTING_UNSIGNED;
      }
      if (!mayWrite.getAsBoolean() || !nodes.listed().getAsBoolean()) {
        return;
      }
      List<String> unsigned = nodes.unsigned().get();
      for (String name : unsigned) {
        nodes.stored().apply(name).ifPresent(node -> reSign(client, throttle, node, nodes.written()));
      }
      String since = clock.instant().toString();
      throttle.write(() -> cm == null
          ? client.configMaps().inNamespace(r.namespace()).resource(new ConfigMapBuilder().withNewMetadata()
              .withName(r.configMap()).withNamespace(r.namespace()).addToLabels("app.kubernetes.io/part-of",
                  NodeKeys.COMPONENT).endMetadata().addToData(MARKER, since).build()).create()
          : client.configMaps().inNamespace(r.namespace()).resource(new ConfigMapBuilder(cm).addToData(MARKER, since)
              .build()).update());
      state = State.SIGNED_ONLY;
      LOGGER.info("re-signed {} ledger(s) written unsigned by an earlier release; from now on an unsigned ledger is not"
          + " trusted", unsigned.size());
    } catch (RuntimeException e) { // the API's refusals and anything else: the next round tries again
      LOGGER.warn("ledger re-signing not finished ({}); trying again", e.getMessage());
    }
  }

  /** The node with its unsigned ledger signed as it stands, written fenced by its resourceVersion (a 409 throws). */
  private void reSign(KubernetesClient client, ApiThrottle throttle, Node node, UnaryOperator<Node> ownWrite) {
    String name = node.getMetadata().getName();
    String stored = Optional.ofNullable(node.getMetadata().getAnnotations()).map(a -> a.get(NodeKeys.LEDGER_ANNOTATION))
        .orElse("");
    try {
      LedgerSeal.Opened opened = seal.open(name, stored);
      if (opened.signed()) {
        return;
      }
      LedgerCodec.decode(opened.json()); // an unreadable ledger stays as it is, and unread
    } catch (LedgerSeal.Untrusted | IllegalArgumentException e) {
      return;
    }
    Node signed = new NodeBuilder(node).editMetadata().addToAnnotations(NodeKeys.LEDGER_ANNOTATION,
        seal.sealed(name, stored)).endMetadata().build();
    ownWrite.apply(throttle.write(() -> client.nodes().resource(signed).update()));
  }
}
