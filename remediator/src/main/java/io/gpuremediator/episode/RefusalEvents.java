package io.gpuremediator.episode;

import io.gpuremediator.bounded.BoundedMap;
import io.gpuremediator.bounded.TokenBucket;
import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executor;
import java.util.concurrent.locks.LockSupport;
import java.util.function.LongConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes Event on the node for every refused remediation, once per episode and reason
 * (Alertmanager re-sends a refused alert every group interval). The webhook only queues them: one writer
 * drains the queue off the webhook's path, paced as the kubelet paces its own Events (50 a second, bursts of
 * 100), so a 200-node storm is answered at once and its Events follow within seconds without flooding the API
 * server. Past {@value #QUEUED} waiting, further Events are dropped and counted in a warning.
 */
public final class RefusalEvents implements DecisionListener {
  private static final Logger LOGGER = LoggerFactory.getLogger(RefusalEvents.class);
  private static final int REMEMBERED = 10_000;
  static final int QUEUED = 10_000;
  static final double PER_SECOND = 50;
  static final int BURST = 100;

  private final NodeEvents events;
  private final Executor executor;
  private final Map<Episode, Boolean> recorded = BoundedMap.firstInFirstOut(REMEMBERED);
  /** Waiting refusals, and whether a drain of them is scheduled (both under the queue's monitor). */
  private final Deque<Decision> queue = new ArrayDeque<>();
  private boolean draining;
  private long dropped;
  private final Pace pace;

  /** Creates the listener; {@code executor} runs the paced writer; each Event is dated by its decision. */
  public RefusalEvents(Cluster cluster, Executor executor) {
    this(cluster, executor, new Pace(PER_SECOND, BURST, System::nanoTime,
        nanos -> LockSupport.parkNanos(nanos)));
  }

  RefusalEvents(Cluster cluster, Executor executor, Pace pace) {
    this.events = new NodeEvents(cluster);
    this.executor = executor;
    this.pace = pace;
  }

  @Override
  public void decided(Decision d) {
    if (d.outcome() != Outcome.SUPPRESSED || d.node().isEmpty()) {
      return;
    }
    synchronized (recorded) {
      if (recorded.put(new Episode(d.fingerprint(), d.startsAt(), d.reason()), Boolean.TRUE) != null) {
        return;
      }
    }
    synchronized (queue) {
      if (queue.size() >= QUEUED) {
        if (dropped++ % 1000 == 0) {
          LOGGER.warn("{} refusal Events waiting: the Event for node {} is dropped ({} dropped so far); its decision is"
              + " still logged, counted and listed", QUEUED, d.node(), dropped);
        }
        return;
      }
      queue.add(d); // its Event is written by the writer, which also builds it: the webhook only queues
      if (draining) {
        return;
      }
      draining = true;
    }
    executor.execute(this::drain);
  }

  /** One episode refused for one reason: one Event. */
  private record Episode(String fingerprint, Instant startsAt, Reason reason) {}

  /** The Event for a refusal. */
  private static NodeEvent event(Decision d) {
    String message = d.alertname() + " not remediated (" + d.reason().code() + "): " + d.detail();
    return NodeEvents.warning(d.node(), "RemediationSuppressed", message, d.time());
  }

  /** Writes the waiting Events one at a time, at the pace, until none is left. */
  private void drain() {
    while (true) {
      Decision next;
      synchronized (queue) {
        next = queue.poll();
        if (next == null) {
          draining = false;
          return;
        }
      }
      NodeEvent event = event(next); // built outside the monitor the webhooks queue under
      pace.await();
      events.record(event);
    }
  }

  /** How many Events wait to be written. */
  int waiting() {
    synchronized (queue) {
      return queue.size();
    }
  }

  /** A token bucket: {@code burst} at once, then {@code perSecond}; {@link #await} parks until a token is there. */
  static final class Pace {
    private final TokenBucket bucket;
    private final LongConsumer park;

    Pace(double perSecond, int burst, LongSupplier nanos, LongConsumer park) {
      this.bucket = new TokenBucket(perSecond, burst, nanos);
      this.park = park;
    }

    /** Takes a token, parking until one is there (only the writer calls this). */
    void await() {
      for (long wait = bucket.takeOrWait(); wait > 0; wait = bucket.takeOrWait()) {
        park.accept(wait);
      }
    }
  }

  /** A listener that tells each of {@code listeners} in turn. */
  public static DecisionListener all(DecisionListener... listeners) {
    return new DecisionListener() {
      @Override
      public void decided(Decision decision) {
        for (DecisionListener l : listeners) {
          l.decided(decision);
        }
      }

      @Override
      public void decidedAll(List<Decision> decisions) {
        for (DecisionListener l : listeners) {
          l.decidedAll(decisions);
        }
      }

      @Override
      public void actionTimed(String action, String outcome, double seconds) {
        for (DecisionListener l : listeners) {
          l.actionTimed(action, outcome, seconds);
        }
      }

      @Override
      public void stages(Map<Stage, Integer> counts, int gpusFenced) {
        for (DecisionListener l : listeners) {
          l.stages(counts, gpusFenced);
        }
      }

      @Override
      public void oldestSteps(Map<String, Instant> startedByKind) {
        for (DecisionListener l : listeners) {
          l.oldestSteps(startedByKind);
        }
      }

      @Override
      public void stepFinished(String kind, String outcome, double seconds) {
        for (DecisionListener l : listeners) {
          l.stepFinished(kind, outcome, seconds);
        }
      }

      @Override
      public void episodeEnded(String playbook, String outcome, String closedBy, double seconds) {
        for (DecisionListener l : listeners) {
          l.episodeEnded(playbook, outcome, closedBy, seconds);
        }
      }

      @Override
      public void repaired(String playbook, String step, double seconds) {
        for (DecisionListener l : listeners) {
          l.repaired(playbook, step, seconds);
        }
      }

      @Override
      public void incidentInterval(double seconds) {
        for (DecisionListener l : listeners) {
          l.incidentInterval(seconds);
        }
      }
    };
  }
}
