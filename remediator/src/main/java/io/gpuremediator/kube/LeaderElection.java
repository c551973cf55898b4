package io.gpuremediator.kube;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaderElectionRecord;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.Lock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader election on a Lease. Only the leader acts; a follower is not ready, so Alertmanager's webhook
 * gets a 503 there and retries (and a Service routes only to ready pods). On stop the lease is released,
 * so a follower takes over within one retry period. Leadership is trusted only while the last successful
 * renewal is recent ({@link LeaseTrust}), so a process paused past its Lease acts on nothing when it wakes.
 */
public final class LeaderElection implements AutoCloseable {
  private static final Logger LOGGER = LoggerFactory.getLogger(LeaderElection.class);

  private final KubernetesClient client;
  private final String namespace;
  private final String lease;
  private final String identity;
  private final Duration leaseDuration;
  private final LeaseTrust trust;
  private CompletableFuture<?> running;
  private volatile boolean leader;
  private volatile boolean closed;

  /** Creates the election; {@link #start} runs it. */
  public LeaderElection(KubernetesClient client, String namespace, String lease, String identity, Duration leaseDuration) {
    this.client = client;
    this.namespace = namespace;
    this.lease = lease;
    this.identity = identity;
    this.leaseDuration = leaseDuration;
    this.trust = new LeaseTrust(leaseDuration.multipliedBy(2).dividedBy(3), System::nanoTime);
  }

  /**
   * Starts competing; {@code onLead} runs on becoming leader, {@code onLoss} on losing it. An instance that
   * lost its Lease (a renewal deadline missed under load or API faults) competes again as a follower: a
   * fabric8 elector runs once, and without a new one a single replica would never lead again.
   */
  public synchronized void start(Runnable onLead, Runnable onLoss) {
    if (closed) {
      return;
    }
    Duration renew = leaseDuration.multipliedBy(2).dividedBy(3);
    Duration retry = leaseDuration.dividedBy(7).isZero() ? Duration.ofMillis(100) : leaseDuration.dividedBy(7);
    running = client.leaderElector().withConfig(new LeaderElectionConfigBuilder()
        .withName(lease)
        .withLock(new RenewalLock(new LeaseLock(namespace, lease, identity), trust))
        .withLeaseDuration(leaseDuration)
        .withRenewDeadline(renew)
        .withRetryPeriod(retry)
        .withReleaseOnCancel(true)
        .withLeaderCallbacks(new LeaderCallbacks(
            () -> {
              LOGGER.info("became leader ({} on lease {}/{})", identity, namespace, lease);
              onLead.run();
              leader = true;
            },
            () -> {
              leader = false;
              LOGGER.warn("lost leadership ({} on lease {}/{})", identity, namespace, lease);
              onLoss.run();
            },
            newLeader -> LOGGER.info("leader is {}", newLeader)))
        .build()).build().start();
    running.whenComplete((done, failure) -> {
      if (!closed) {
        LOGGER.info("{} competes for lease {}/{} again", identity, namespace, lease);
        start(onLead, onLoss);
      }
    });
  }

  /** Whether this instance leads now: elected, and its last renewal recent enough to act on. */
  public boolean isLeader() {
    return leader && trust.holds();
  }

  /** The Lease lock, telling the trust about every successful create or update (the elector's renewals). */
  private record RenewalLock(Lock delegate, LeaseTrust trust) implements Lock {
    @Override
    public LeaderElectionRecord get(KubernetesClient client) {
      return delegate.get(client);
    }

    @Override
    public void create(KubernetesClient client, LeaderElectionRecord record) {
      long sent = trust.now();
      delegate.create(client, record);
      trust.renewed(sent);
    }

    @Override
    public void update(KubernetesClient client, LeaderElectionRecord record) {
      long sent = trust.now();
      delegate.update(client, record);
      trust.renewed(sent);
    }

    @Override
    public String identity() {
      return delegate.identity();
    }

    @Override
    public String describe() {
      return delegate.describe();
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    leader = false;
    if (running != null) {
      running.cancel(true);
    }
  }
}
