package io.gpuremediator.episode;

import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeResolver;
import io.gpuremediator.playbook.Matcher;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.safety.SafetyGate;
import java.time.Clock;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * The one way a {@link RemediationEngine} is assembled, by {@code serve}, {@code explain}, {@code backtest} and the
 * tests alike: what every engine needs up front, the rest with the defaults of one instance that always may write.
 */
public final class EngineBuilder {
  final Supplier<PlaybookSet> playbooks;
  final Cluster cluster;
  final NodeResolver resolver;
  final Clock clock;
  boolean dryRun;
  SafetyGate gate = SafetyGate.OPEN;
  DecisionListener listener = decision -> { };
  BooleanSupplier mayWrite = () -> true;
  NodeExclusion exclusion = new NodeExclusion(node -> { });
  AlertScope scope = AlertScope.ALL;
  NodeFanOut fanOut = NodeFanOut.SEQUENTIAL;

  EngineBuilder(Supplier<PlaybookSet> playbooks, Cluster cluster, NodeResolver resolver, Clock clock) {
    this.playbooks = playbooks;
    this.cluster = cluster;
    this.resolver = resolver;
    this.clock = clock;
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

  /** How the nodes of one webhook are written side by side (default: one after another). */
  public EngineBuilder fanOut(NodeFanOut nodeFanOut) {
    this.fanOut = nodeFanOut;
    return this;
  }

  /** The engine. */
  public RemediationEngine build() {
    return new RemediationEngine(this);
  }
}
