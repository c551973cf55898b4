package io.gpuremediator.episode;

import io.gpuremediator.action.StepPorts;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.DeferRule;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.SafetyGate;
import io.gpuremediator.state.LedgerLimits;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one way a {@link RemediationEngine} is assembled, by {@code serve}, {@code explain}, {@code backtest} and the
 * tests alike: what every engine needs up front, the rest with the defaults of one instance that always may write.
 */
public final class EngineBuilder {
  private final Supplier<PlaybookSet> playbooks;
  private final Cluster cluster;
  private final NodeResolver resolver;
  private final Clock clock;
  private boolean dryRun;
  private SafetyGate gate = SafetyGate.OPEN;
  private DecisionListener listener = decision -> { };
  private BooleanSupplier mayWrite = () -> true;
  private NodeExclusion exclusion = new NodeExclusion(node -> { });
  private Optional<StepPorts> ports = Optional.empty();
  private AlertScope scope = AlertScope.ALL;
  private NodeFanOut fanOut = NodeFanOut.SEQUENTIAL;
  private List<DeferRule> deferTo = List.of();
  private LedgerLimits ledgerLimits = LedgerLimits.DEFAULT;

  private EngineBuilder(Supplier<PlaybookSet> playbooks, Cluster cluster, NodeResolver resolver, Clock clock) {
    this.playbooks = playbooks;
    this.cluster = cluster;
    this.resolver = resolver;
    this.clock = clock;
  }

  /** Starts assembling an engine from what every engine needs; the rest has the defaults said below. */
  public static EngineBuilder of(Supplier<PlaybookSet> playbooks, Cluster cluster, NodeResolver resolver, Clock clock) {
    return new EngineBuilder(playbooks, cluster, resolver, clock);
  }

  /** The global dry-run: every decision recorded, nothing written (default: off). */
  public EngineBuilder dryRun(boolean on) {
    this.dryRun = on;
    return this;
  }

  /** The fleet's limits (default: none, {@link SafetyGate#OPEN}). */
  public EngineBuilder gate(SafetyGate safetyGate) {
    this.gate = safetyGate;
    return this;
  }

  /** Hears every decision (default: nobody). */
  public EngineBuilder listener(DecisionListener decisionListener) {
    this.listener = decisionListener;
    return this;
  }

  /** Whether this instance may write now, asked before each write: leadership (default: always). */
  public EngineBuilder mayWrite(BooleanSupplier leader) {
    this.mayWrite = leader;
    return this;
  }

  /** The background loop whose node holds the webhook's writes share (default: the engine holds its nodes alone). */
  public EngineBuilder loop(EpisodeLoop loop) {
    this.exclusion = loop.exclusion();
    this.ports = Optional.of(loop.ports());
    return this;
  }

  EngineBuilder exclusion(NodeExclusion nodeExclusion) {
    this.exclusion = nodeExclusion;
    return this;
  }

  /** {@code accept_alerts}: the matchers every alert must satisfy (default: every alert is ours). */
  public EngineBuilder accept(List<Matcher> matchers) {
    this.scope = new AlertScope(matchers);
    return this;
  }

  /** {@code defer_to}: signs that another system owns a node's repair (default: none). */
  public EngineBuilder deferTo(List<DeferRule> rules) {
    this.deferTo = rules;
    return this;
  }

  /** {@code ledger}: how much a node's ledger may hold (default: {@link LedgerLimits#DEFAULT}). */
  public EngineBuilder ledger(LedgerLimits limits) {
    this.ledgerLimits = limits;
    return this;
  }

  /** How the nodes of one webhook are written side by side (default: one after another). */
  public EngineBuilder fanOut(NodeFanOut nodeFanOut) {
    this.fanOut = nodeFanOut;
    return this;
  }

  /** The engine. */
  public RemediationEngine build() {
    return new RemediationEngine(playbooks, cluster, resolver, clock, dryRun, gate, listener, mayWrite, exclusion, scope,
        fanOut, deferTo, ports, ledgerLimits);
  }
}
