package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.LocalAlertmanager;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.Tokens;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's "plain HTTP only": the webhook token crossed the network in the clear. The service serves TLS
 * ({@code tls:}), and the shipped route, {@code alerts/alertmanager.yml} as it is but for its addresses (the service on
 * 127.0.0.1, the token and the CA in this test's directory), reaches it over https with a real Alertmanager verifying
 * the certificate with the route's {@code ca_file}: an alert Alertmanager receives quarantines its node.
 */
class ShippedRouteTlsMockTest {
  private static final String TOKEN = "shipped-route-tls-test-token";
  private static final String SHIPPED_URL = "https://gpu-remediator.gpu-remediator.svc:8080/api/v1/alerts";
  private static final String SHIPPED_TOKEN = "/etc/alertmanager/secrets/gpu-remediator/token";
  private static final String SHIPPED_CA = "/etc/alertmanager/secrets/gpu-remediator-tls/ca.crt";
  @TempDir Path dir;

  /** A self-signed certificate for the service's in-cluster name and 127.0.0.1: its own CA. */
  private void certificate(Path cert, Path key) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
        "-subj", "/CN=gpu-remediator.gpu-remediator.svc",
        "-addext", "subjectAltName=DNS:gpu-remediator.gpu-remediator.svc,IP:127.0.0.1",
        "-keyout", key.toString(), "-out", cert.toString())).redirectErrorStream(true)
        .redirectOutput(dir.resolve("openssl.log").toFile()).start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0).as(Files.readString(dir.resolve("openssl.log")))
        .isTrue();
  }

  @Test
  void theShippedRouteDeliversOverTlsVerifiedWithItsCa() throws Exception {
    Path cert = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    certificate(cert, key);
    Tokens.write(dir, TOKEN);
    int port = LocalAlertmanager.freePort();
    String shipped = Files.readString(Path.of("../alerts/alertmanager.yml"));
    assertThat(shipped).contains(SHIPPED_URL, SHIPPED_TOKEN, SHIPPED_CA);
    String route = shipped.replace(SHIPPED_URL, "https://127.0.0.1:" + port + "/api/v1/alerts")
        .replace(SHIPPED_TOKEN, dir.resolve("token").toString()).replace(SHIPPED_CA, cert.toString());
    Path config = dir.resolve("remediator.yaml");
    Files.writeString(config, "listen: 127.0.0.1:" + port + "\n" + Tokens.AUTH + "\ntls: {cert_file: tls.crt, key_file:"
        + " tls.key}\nplaybooks: [" + Path.of("../deploy/playbooks").toAbsolutePath() + "]\n"
        + "leader_election: {enabled: false}\nsafety: {max_unavailable: 50%}\n");
    try (EmulatedApiServer server = EmulatedApiServer.start(); KubernetesClient client = server.client()) {
      Nodes.createFleet(client, 4);
      // Started, not awaited ready: the harness's readiness probe speaks plain HTTP, and this listener speaks only TLS.
      try (RunningService service = RunningService.started(config, KubeApi.of(client), Alerts.liveClock(), Optional.empty());
          LocalAlertmanager am = new LocalAlertmanager(dir.resolve("am"), LocalAlertmanager.freePort(), route)) {
        String alert = "[{\"labels\":{\"alertname\":\"GpuXidHardwareError\",\"node\":\"gpu-node-1\",\"xid\":\"79\","
            + "\"gpu\":\"3\",\"severity\":\"critical\",\"remediate\":\"true\"},\"startsAt\":\"" + Instant.now() + "\"}]";
        assertThat(am.post("/api/v2/alerts", alert)).isEqualTo(200);
        await().atMost(Duration.ofSeconds(60)).until(() -> Boolean.TRUE.equals(
            client.nodes().withName("gpu-node-1").get().getSpec().getUnschedulable()));
      }
    }
  }
}
