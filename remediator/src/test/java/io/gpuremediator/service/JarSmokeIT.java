package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Http;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shaded jar as an operator runs it: `serve` through a kubeconfig, `validate`, and a refused config. */
@EnableKubernetesMockClient(crud = true)
class JarSmokeIT {
  KubernetesMockServer server;
  KubernetesClient client;
  @TempDir Path dir;

  private static final String JAR = System.getProperty("remediator.jar", "target/remediator.jar");
  private static final String TOKEN = "smoke-test-token-0123456789";

  private Process java(Path log, String... args) throws IOException {
    String[] command = new String[args.length + 3];
    command[0] = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    command[1] = "-jar";
    command[2] = JAR;
    System.arraycopy(args, 0, command, 3, args.length);
    return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /** {@code serve} of the shaded jar through a kubeconfig to the mock API server, with {@code extraConfig}. */
  private Serving serve(String name, String extraConfig) throws IOException {
    Path kubeconfig = dir.resolve("kubeconfig");
    Files.writeString(kubeconfig, "apiVersion: v1\nkind: Config\ncurrent-context: mock\n"
        + "clusters: [{name: mock, cluster: {server: '" + client.getMasterUrl() + "', insecure-skip-tls-verify: true}}]\n"
        + "contexts: [{name: mock, context: {cluster: mock, user: mock}}]\nusers: [{name: mock, user: {token: mock}}]\n");
    Tokens.write(dir, TOKEN);
    int port;
    try (ServerSocket s = new ServerSocket(0)) {
      port = s.getLocalPort();
    }
    Path config = dir.resolve(name + ".yaml");
    Files.writeString(config, "listen: 127.0.0.1:" + port + "\n" + Tokens.AUTH + "\nplaybooks: ["
        + Path.of("../deploy/playbooks").toAbsolutePath() + "]\nkubernetes: {kubeconfig: kubeconfig}\n"
        + "safety: {max_unavailable: 1}\n" + extraConfig);
    Path log = dir.resolve(name + ".log");
    return new Serving(java(log, "serve", "--config", config.toString()), port, log);
  }

  private record Serving(Process process, int port, Path log) {
    /** Waits until ready, posts an XID 79 on gpu-node-1 and checks the node was cordoned; then stops the process by PID. */
    void quarantine(KubernetesClient client) throws Exception {
      try {
        Awaitility.await().atMost(Duration.ofSeconds(60))
            .pollInterval(Duration.ofMillis(100)).ignoreExceptions()
            .untilAsserted(() -> assertThat(Http.status(port, "/readyz")).as(Files.readString(log)).isEqualTo(200));
        HttpResponse<String> r = Http.postJson(port, "/api/v1/alerts", Alerts.json(Alerts.xid("gpu-node-1", "79")), TOKEN);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(client.nodes().withName("gpu-node-1").get().getSpec().getUnschedulable()).isTrue();
      } finally {
        process.destroy();
        assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
      }
    }
  }

  @Test
  void serveQuarantinesThroughAKubeconfigAndStopsByPid() throws Exception {
    client.nodes().resource(Nodes.gpu("gpu-node-1", "10.0.0.1")).create();
    Serving serving = serve("serve", "");
    serving.quarantine(client);
    assertThat(Files.readString(serving.log())).contains("decision outcome=applied reason=actions_applied");
  }

  @Test
  void logFormatJsonWritesOneObjectALineWithTheDecisionsFields() throws Exception {
    client.nodes().resource(Nodes.gpu("gpu-node-1", "10.0.0.1")).create();
    Serving serving = serve("json", "log_format: json\n");
    serving.quarantine(client);
    List<JsonObject> lines = new ArrayList<>();
    for (String line : Files.readAllLines(serving.log())) {
      assertThat(line).as("every line of the log is a JSON object").startsWith("{").endsWith("}");
      lines.add(new JsonObject(line));
    }
    assertThat(lines).allSatisfy(l -> assertThat(l.fieldNames()).contains("@timestamp", "level", "logger_name", "message"));
    JsonObject decision = lines.stream().filter(l -> "applied".equals(l.getString("outcome"))).findFirst().orElseThrow(
        () -> new AssertionError("no decision with outcome applied in " + lines));
    assertThat(decision.getString("node")).isEqualTo("gpu-node-1");
    assertThat(decision.getString("playbook")).isEqualTo("gpu-hardware-xid");
    assertThat(decision.getString("reason")).isEqualTo("actions_applied");
    assertThat(decision.getString("episode")).matches("[0-9a-f]{16}");
    assertThat(decision.getString("@timestamp")).endsWith("Z");
  }

  @Test
  void validateExitsZeroOnTheShippedPlaybooks() throws Exception {
    Path log = dir.resolve("validate.log");
    Process p = java(log, "validate", "../deploy/playbooks");
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(log)).isZero();
    assertThat(Files.readAllLines(log, StandardCharsets.UTF_8)).hasSize(shippedPlaybookFiles()).allMatch(l -> l.startsWith("SUCCESS: "));
  }

  @Test
  void serveRefusesABadConfigWithOneLine() throws Exception {
    Path config = dir.resolve("bad.yaml");
    Files.writeString(config, "auth: {}\n");
    Path log = dir.resolve("bad.log");
    Process p = java(log, "serve", "--config", config.toString());
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).isEqualTo(1);
    assertThat(Files.readAllLines(log)).containsExactly("remediator serve: invalid config: " + config
        + ":1: auth needs webhook_token_file and operator_token_file (or insecure_no_auth: true)");
  }

  /** The playbook files deploy/playbooks ships (its Kustomization is not one). */
  private static int shippedPlaybookFiles() throws IOException {
    try (Stream<Path> files = Files.list(Path.of("../deploy/playbooks"))) {
      return (int) files.filter(f -> f.toString().endsWith(".yaml")).count();
    }
  }
}
