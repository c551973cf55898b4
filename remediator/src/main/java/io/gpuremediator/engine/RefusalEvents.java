package io.gpuremediator.engine;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Outcome;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records a Kubernetes Event on the node for every refused remediation, once per episode and reason
 * (Alertmanager re-sends a refused alert every group interval). Events are written off the webhook's
 * path: a 200-node storm is answered at once, and its Events follow.
 */
public final class RefusalEvents implements DecisionListener {
  private static final Logger LOGGER = LoggerFactory.getLogger(RefusalEvents.class);
  private static final int REMEMBERED = 10_000;

  private final Cluster cluster;
  private final Executor executor;
  private final Clock clock;
  private final Map<String, Boolean> recorded = new LinkedHashMap<>(256, 0.75f, false) {
    @Override
    protected boolean removeEldestEntry(Map.Entry<String, Boolean> eldest) {
      return size() > REMEMBERED;
    }
  };

  /** Creates the listener; {@code executor} runs the Event writes. */
  public RefusalEvents(Cluster cluster, Executor executor, Clock clock) {
    this.cluster = cluster;
    this.executor = executor;
    this.clock = clock;
  }

  @Override
  public void decided(Decision d) {
    if (d.outcome() != Outcome.SUPPRESSED || d.node().isEmpty()) {
      return;
    }
    synchronized (recorded) {
      if (recorded.put(d.fingerprint() + "@" + d.startsAt() + "/" + d.reason().code(), Boolean.TRUE) != null) {
        return;
      }
    }
    String message = d.alertname() + " not remediated (" + d.reason().code() + "): " + d.detail();
    NodeEvent event = new NodeEvent(d.node(), "Warning", "RemediationSuppressed",
        message.length() > 1024 ? message.substring(0, 1021) + "..." : message, clock.instant());
    executor.execute(() -> {
      try {
        cluster.recordEvent(event);
      } catch (ClusterException | RuntimeException e) {
        LOGGER.warn("refusal event for node {} not recorded: {}", d.node(), e.getMessage());
      }
    });
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
      public void actionTimed(String action, String outcome, double seconds) {
        for (DecisionListener l : listeners) {
          l.actionTimed(action, outcome, seconds);
        }
      }
    };
  }
}
