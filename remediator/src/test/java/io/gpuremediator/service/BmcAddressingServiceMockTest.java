package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Playbooks;
import io.gpuremediator.testing.RedfishBmcStub;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The attack of the security review against the whole service: a node's own kubelet writes the BMC annotation today's
 * release followed, naming another server's BMC, and a reboot alert arrives for it. The BMC that is reset is the one
 * the operator wrote for the node in {@code cloud.redfish.bmcs}; the other BMC is never sent a request (nor the
 * fleet's credentials). An operator's entry that names another machine's BMC is {@code bmc_mismatch}, nothing POSTed.
 */
class BmcAddressingServiceMockTest {
  private static final String PLAYBOOKS = Playbooks.quarantining("gpu-reboot", """
            - reboot: {method: redfish, timeout: 30m}
      """);
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private RedfishBmcStub own;
  private RedfishBmcStub other;

  @AfterEach
  void stop() throws Exception {
    if (client != null) {
      client.close();
      server.close();
    }
    for (RedfishBmcStub bmc : new RedfishBmcStub[] {own, other}) {
      if (bmc != null) {
        bmc.close();
      }
    }
  }

  /**
   * The playbooks, the tokens, the fleet's BMC credentials and a config with wide limits, a fast loop and Redfish with
   * these {@code bmcs} items (each a line, indented six spaces); answers the config's path.
   */
  private Path config(String bmcs) throws IOException {
    Files.writeString(dir.resolve("playbooks.yaml"), PLAYBOOKS);
    Tokens.write(dir, "bmc-addressing-test-token");
    Files.writeString(dir.resolve("bmc-credentials"), "admin:fleet-secret\n");
    return ServiceConfig.write(dir.resolve("remediator.yaml"), "playbooks.yaml", "leader_election: {enabled: false}\n",
        "safety: {max_unavailable: 100%, rate_limit: 100/1h, breaker: {nodes: 50, window: 10m}}\n",
        "loop: {interval: 200ms, retry_delay: 200ms}\n", "cloud:\n  redfish:\n    credentials_file: bmc-credentials\n"
        + "    ca_file: " + RedfishBmcStub.PEMS.resolve("ca.pem").toAbsolutePath() + "\n    bmcs:\n" + bmcs);
  }

  @Test
  void aBmcUrlTheNodeWroteItselfIsNeverFollowedAndAnEntryForAnotherMachineIsABmcMismatch() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 3);
    own = new RedfishBmcStub("admin:fleet-secret");
    other = new RedfishBmcStub("admin:fleet-secret", RedfishBmcStub.RECORDED.resolve("libredfish-lenovo"));
    systemUuid("gpu-node-0", own.systemUuid());
    systemUuid("gpu-node-1", other.systemUuid());
    systemUuid("gpu-node-2", "4c4c4544-0035-3410-8050-c6c04f314733");
    Path config = config("      - {node: gpu-node-0, url: \"" + own.url() + "\"}\n"
        + "      - {node: gpu-node-1, url: \"" + other.url() + "\"}\n"
        + "      - {node: gpu-node-2, url: \"" + own.url() + "\"}\n"); // a typo: gpu-node-0's BMC
    // What the node's own kubelet can write: the annotation today's release took as the node's BMC.
    client.nodes().withName("gpu-node-0").edit(n -> {
      n.getMetadata().getAnnotations().put("gpu-remediator.io/bmc-url", other.url().toString());
      return n;
    });

    try (RunningService service = new RunningService(config, server, Clock.systemUTC(), "bmc-addressing-test-token")) {
      assertThat(service.post(Alerts.xid("gpu-node-0", "79"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> !own.resets().isEmpty());
      assertThat(other.requests()).as("the BMC the node named for itself").isEmpty();

      assertThat(service.post(Alerts.xid("gpu-node-2", "79"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> service.decisions().contains("\"reason\":\"bmc_mismatch\""));
      assertThat(service.decisions()).contains("is not gpu-node-2's");
      assertThat(own.resets()).as("gpu-node-0's server, once; never for gpu-node-2").hasSize(1);
      assertThat(other.requests()).isEmpty();
      assertThat(service.get("/metrics").body())
          .contains("remediator_decisions_total{outcome=\"failed\",reason=\"bmc_mismatch\",}");
    }
  }

  /**
   * A kubelet chooses its Node's providerID and systemUUID when it registers: one that registers with another
   * machine's (gpu-node-3 with gpu-node-1's, whose BMC is keyed by provider_id) would have that machine power-cycled,
   * its UUID check passing. A node stating another watched node's providerID or systemUUID is a bmc_mismatch: nothing
   * is POSTed to either BMC.
   */
  @Test
  void aNodeThatRegisteredWithAnotherMachinesProviderIdAndUuidNeverHasThatMachineReset() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    other = new RedfishBmcStub("admin:fleet-secret", RedfishBmcStub.RECORDED.resolve("libredfish-lenovo"));
    for (String node : new String[] {"gpu-node-1", "gpu-node-3"}) { // gpu-node-3: the impostor
      systemUuid(node, other.systemUuid());
      client.nodes().withName(node).edit(n -> {
        n.getSpec().setProviderID("aws:///us-west-2a/i-0b22a22eec53b9321");
        return n;
      });
    }
    Path config = config("      - {provider_id: \"aws:///us-west-2a/i-0b22a22eec53b9321\", url: \"" + other.url() + "\"}\n");
    try (RunningService service = new RunningService(config, server, Clock.systemUTC(), "bmc-addressing-test-token")) {
      assertThat(service.post(Alerts.xid("gpu-node-3", "79"))).contains("actions_applied");
      await().atMost(Duration.ofSeconds(20)).until(() -> service.decisions().contains("\"reason\":\"bmc_mismatch\""));
      assertThat(service.decisions()).contains("node gpu-node-3 states the providerID or systemUUID of node gpu-node-1 too");
      assertThat(other.resets()).as("gpu-node-1's server: never reset on gpu-node-3's word").isEmpty();
    }
  }

  private void systemUuid(String node, String uuid) {
    client.nodes().withName(node).editStatus(n -> {
      n.getStatus().getNodeInfo().setSystemUUID(uuid);
      return n;
    });
  }
}
