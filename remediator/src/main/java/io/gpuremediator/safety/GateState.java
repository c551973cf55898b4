package io.gpuremediator.safety;

import java.time.Clock;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What the gate's parts share: the fleet state (immutable, published through a volatile field, changed only under the
 * lock), whether it is loaded, the limits, the clock, the listener and the writer.
 */
final class GateState {
  final ReentrantLock lock = new ReentrantLock();
  final SafetyLimits limits;
  final Clock clock;
  final SafetyListener listener;
  final FleetStateWriter writer;
  volatile FleetState state = FleetState.EMPTY;
  volatile boolean loaded;

  GateState(SafetyLimits limits, Clock clock, SafetyListener listener, FleetStateWriter writer) {
    this.limits = limits;
    this.clock = clock;
    this.listener = listener;
    this.writer = writer;
  }

  /** Keeps the new state in memory even when it cannot be stored (a breaker that opened stays open); stores it later. */
  void persist(FleetState next) {
    state = next;
    saveLater();
  }

  /** Stores the newest state in the background. */
  void saveLater() {
    writer.saveLater(() -> state);
  }
}
