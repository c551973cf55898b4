package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.LeaderElection;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.time.Duration;

/**
 * Decodes {@code leader_election}: {@code enabled}, the Lease's {@code namespace} and name ({@code lease}), and
 * {@code lease_duration}, how long a leader's Lease lasts unrenewed: how long a killed leader's replicas wait before
 * one of them acts. The leader renews it within two thirds of that, so a shorter Lease asks more of the API server and
 * of a busy node's scheduler.
 */
final class LeaderElectionConfig {
  /** client-go's and controller-runtime's default. */
  static final Duration DEFAULT_LEASE_DURATION = Duration.ofSeconds(15);
  private static final Duration SHORTEST = Duration.ofSeconds(5);
  private static final Duration LONGEST = Duration.ofMinutes(5);

  private LeaderElectionConfig() {}

  static LeaderElection decode(MapReader m, Problems problems) {
    return m.map("leader_election", "leader_election").map(l -> {
      boolean enabled = l.bool("enabled").orElse(true);
      String ns = l.string("namespace").orElse("gpu-remediator");
      String lease = l.string("lease").orElse("gpu-remediator");
      for (String[] kv : new String[][] {{"namespace", ns}, {"lease", lease}}) {
        FieldRule.DNS_SUBDOMAIN.check(kv[1]).ifPresent(e -> problems.add(l.at(kv[0]), "\"" + kv[0] + "\" in leader_election: " + e));
      }
      Duration duration = l.parsed("lease_duration", Durations::parse).orElse(DEFAULT_LEASE_DURATION);
      if (duration.compareTo(SHORTEST) < 0 || duration.compareTo(LONGEST) > 0) {
        problems.add(l.at("lease_duration"), "\"lease_duration\" in leader_election must be between 5s and 5m");
      }
      l.finish();
      return new LeaderElection(enabled, ns, lease, duration);
    }).orElse(new LeaderElection(true, "gpu-remediator", "gpu-remediator", DEFAULT_LEASE_DURATION));
  }
}
