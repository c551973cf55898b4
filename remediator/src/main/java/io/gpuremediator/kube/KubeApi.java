package io.gpuremediator.kube;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.device.Devices;
import io.gpuremediator.node.LabelSelector;
import io.gpuremediator.safety.FleetStore;
import io.gpuremediator.workload.Workloads;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;

/**
 * A connection to one Kubernetes API server, and the adapters built on it. The rest of the service
 * reaches Kubernetes only through what this class hands out, so fabric8 stays inside this package.
 */
public final class KubeApi implements AutoCloseable {
  private final KubernetesClient client;
  private final ApiThrottle throttle;
  /** One for the connection: the fence and the GPU limits' counts share its watch of the ResourceSlices. */
  private final Fabric8Devices devices;

  private KubeApi(KubernetesClient client, ApiThrottle throttle) {
    this.client = client;
    this.throttle = throttle;
    this.devices = new Fabric8Devices(client, throttle);
  }

  /**
   * Connects with a kubeconfig file when given, in-cluster otherwise; the node, workload and owner adapters share a
   * throttle of {@code qps} requests a second after a {@code burst}, and at most {@code writesInFlight} writes at once.
   */
  public static KubeApi connect(Optional<Path> kubeconfig, int qps, int burst, int writesInFlight) throws IOException {
    Config base = kubeconfig.isPresent()
        ? Config.fromKubeconfig(Files.readString(kubeconfig.get(), StandardCharsets.UTF_8))
        : Config.autoConfigure(null);
    // Our own code decides what to retry (conflicts re-read; 5xx answers 503 so Alertmanager retries):
    // the client's long exponential backoff would only hold the webhook open.
    Config config = new ConfigBuilder(base)
        .withRequestRetryBackoffLimit(1)
        .withRequestRetryBackoffInterval(100)
        .withConnectionTimeout(5_000)
        .withRequestTimeout(10_000)
        .build();
    return of(new KubernetesClientBuilder().withConfig(config).build(), qps, burst, writesInFlight);
  }

  /** Uses a client built elsewhere (tests, the bench) with no throttle that matters; closing this closes it. */
  public static KubeApi of(KubernetesClient client) {
    return new KubeApi(client, ApiThrottle.unlimited());
  }

  /** Uses a client built elsewhere, with a throttle as {@link #connect} gives; closing this closes it. */
  public static KubeApi of(KubernetesClient client, int qps, int burst, int writesInFlight) {
    return new KubeApi(client, new ApiThrottle(qps, burst, writesInFlight, ApiThrottle.GIVE_WAY_NANOS, System::nanoTime));
  }

  /**
   * The node cache and writer; {@code start()} it to begin watching. It watches the nodes {@code selector} selects (and
   * those carrying our state) when the API can filter by it, every node otherwise. Each ledger it writes is signed with
   * {@code ledgerKey}, and one it reads is ours only when its signature verifies; a ledger an earlier release wrote
   * unsigned is ours until the leader re-signed them all, once, and recorded so in ConfigMap {@code namespace/configMap}.
   */
  public Fabric8Cluster cluster(String fieldManagerHost, LabelSelector selector, byte[] ledgerKey, String namespace,
      String configMap, Clock clock) {
    return new Fabric8Cluster(client, fieldManagerHost, selector.apiSelector(), throttle, LedgerSigning.reSigningOnce(
        LedgerSeal.withKey(ledgerKey), new LedgerSigning.Record(namespace, configMap), clock));
  }

  /** The node cache and writer, every ledger signed with {@code ledgerKey} and none unsigned trusted (tests, the bench). */
  public Fabric8Cluster cluster(String fieldManagerHost, LabelSelector selector, byte[] ledgerKey) {
    return new Fabric8Cluster(client, fieldManagerHost, selector.apiSelector(), throttle,
        LedgerSigning.signedOnly(LedgerSeal.withKey(ledgerKey)));
  }

  /** The nodes as they are, to read and never to act on: every ledger read, signed or not (a backtest). */
  public Fabric8Cluster readOnlyCluster(String fieldManagerHost, LabelSelector selector) {
    return new Fabric8Cluster(client, fieldManagerHost, selector.apiSelector(), throttle, LedgerSigning.readOnly());
  }

  /** The pods and diagnostic Jobs on nodes. */
  public Workloads workloads() {
    return new Fabric8Workloads(client, throttle);
  }

  /** The devices nodes publish through DRA, and the DeviceTaintRules that fence one of them. */
  public Devices devices() {
    return devices;
  }

  /** The fleet safety state, kept in a ConfigMap. */
  public FleetStore fleetStore(String namespace, String name, String identity, Clock clock) {
    return new ConfigMapFleetStore(client, namespace, name, identity, clock);
  }

  /** Leader election on a Lease. */
  public LeaderElection leaderElection(String namespace, String lease, String identity, Duration leaseDuration) {
    return new LeaderElection(client, namespace, lease, identity, leaseDuration);
  }

  @Override
  public void close() {
    devices.close();
    client.close();
  }
}
