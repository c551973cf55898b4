package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.alert.Alert;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.AutoScalingStub;
import io.gpuremediator.testing.Jobs;
import io.gpuremediator.testing.LocalAlertmanager;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import io.gpuremediator.testing.Tokens;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole service, configured as an operator would (alertmanager.url, notify.receivers, cloud.aws.endpoint), with
 * the shipped playbooks, on the emulated API server, the real Alertmanager and a local Auto Scaling endpoint: a
 * Neuron hardware error quarantines the node, silences its other alerts, tells gpu-oncall, drains it and marks its
 * instance Unhealthy once, through an HA duplicate and a restart; the Node's deletion ends the episode as replaced
 * and expires the silence.
 */
class OutboundServiceMockTest {
  private static final String NODE = "gpu-node-1";
  private static final String INSTANCE = "i-0123456789abcdef0";
  @TempDir Path dir;
  private final Vertx vertx = Vertx.vertx();
  private EmulatedApiServer server;
  private KubernetesClient client;
  private AutoScalingStub aws;
  private LocalAlertmanager am;

  @AfterEach
  void stop() throws Exception {
    System.clearProperty("aws.accessKeyId");
    System.clearProperty("aws.secretAccessKey");
    if (client != null) {
      client.close();
      server.close();
    }
    if (aws != null) {
      aws.close();
    }
    if (am != null) {
      am.close();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aNeuronErrorIsSilencedNotifiedDrainedAndReplacedOnce() throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    client.nodes().withName(NODE).edit(n -> {
      n.getSpec().setProviderID("aws:///us-west-2a/" + INSTANCE);
      return n;
    });
    aws = new AutoScalingStub();
    aws.instance(INSTANCE, "trn1-a");
    am = new LocalAlertmanager(dir.resolve("am"));
    List<String> told = new CopyOnWriteArrayList<>();
    HttpServer slack = vertx.createHttpServer().requestHandler(req -> req.body().onSuccess(b -> {
      told.add(b.toJsonObject().getString("text"));
      req.response().end("ok");
    })).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    Files.writeString(dir.resolve("slack-url"), "http://127.0.0.1:" + slack.actualPort() + "/services/T0/B0/x\n");
    Tokens.write(dir, "outbound-test-token");
    // The SDK's default credentials chain reads these first; on EKS it finds IRSA's web identity instead.
    System.setProperty("aws.accessKeyId", "AKIDEXAMPLE");
    System.setProperty("aws.secretAccessKey", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY");
    Path config = ServiceConfig.writeShipped(dir,
        "safety: {max_unavailable: 50%}\nloop: {interval: 200ms, retry_delay: 200ms}\n"
        + "alertmanager: {url: \"" + am.url() + "\"}\n"
        + "notify: {receivers: [{name: gpu-oncall, type: slack, url_file: slack-url}]}\n"
        + "cloud: {aws: {region: us-west-2, endpoint: \"" + aws.endpoint() + "\"}}\n");
    Alert neuron = Alerts.alert(AlertStatus.FIRING, "NeuronHardwareError", "fe11", Map.of("node", NODE,
        "severity", "critical", "remediate", "true"));

    try (RunningService first = instance(config)) {
      assertThat(first.post(neuron)).contains("actions_applied");
      assertThat(first.post(neuron)).as("the other Alertmanager of an HA pair").contains("duplicate_episode");
      // The replacement waits for the evidence first: this boot's kernel log, in the Job's pod log.
      assertThat(Jobs.complete(client, "collect").getSpec().getTemplate().getSpec().getContainers().get(0).getCommand())
          .contains("journalctl", "-k");
      first.awaitStage(NODE, "replacing", n -> true);
      await().atMost(Duration.ofSeconds(20)).until(() -> silences("active").size() == 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> told.stream().anyMatch(m -> m.contains("is replacing")));
      assertThat(first.get("/metrics").body()).as("DescribeAutoScalingInstances, then SetInstanceHealth")
          .contains("remediator_outbound_requests_total{target=\"aws_autoscaling\",outcome=\"ok\",} 2.0");
      // The step under way is watched (GpuRemediatorStepOverdue reads when the oldest of each kind started).
      await().atMost(Duration.ofSeconds(20)).until(() -> first.get("/metrics").body()
          .contains("remediator_step_oldest_start_timestamp_seconds{kind=\"replace\",}"));
    }
    try (RunningService second = instance(config)) {
      second.awaitStage(NODE, "replacing", n -> true);
      assertThat(aws.applied()).containsExactly(INSTANCE);
      client.nodes().withName(NODE).delete(); // the group terminated the instance; the cloud controller removed the Node
      await().atMost(Duration.ofSeconds(20)).until(() -> second.decisions().contains("\"reason\":\"replaced\""));
      await().atMost(Duration.ofSeconds(20)).until(() -> silences("active").isEmpty() && silences("expired").size() == 1);
      await().atMost(Duration.ofSeconds(20)).until(() -> told.stream().anyMatch(m -> m.startsWith(NODE + " is replaced")));
      String metrics = second.get("/metrics").body();
      assertThat(metrics).contains("remediator_outbound_requests_total{target=\"alertmanager\",outcome=\"ok\",}")
          .contains("remediator_outbound_requests_total{target=\"notify:gpu-oncall\",outcome=\"ok\",}");
    }
    assertThat(aws.applied()).as("one SetInstanceHealth applied").containsExactly(INSTANCE);
    assertThat(aws.setInstanceHealthRequests()).as("and one asked").isEqualTo(1);
    assertThat(told.get(0)).startsWith(NODE + " quarantined by neuron-hardware-error: NeuronHardwareError on " + NODE);
    assertThat(told).anySatisfy(m -> assertThat(m).startsWith(NODE + " is draining"))
        .anySatisfy(m -> assertThat(m).startsWith(NODE + " is replacing").contains(INSTANCE + " marked Unhealthy"));
  }

  private List<JsonObject> silences(String state) throws Exception {
    List<JsonObject> out = new ArrayList<>();
    for (Object o : new JsonArray(am.get("/api/v2/silences"))) {
      JsonObject s = (JsonObject) o;
      if (s.getJsonObject("status").getString("state").equals(state) && s.getString("comment").contains(NODE)) {
        out.add(s);
      }
    }
    return out;
  }

  /** The real clock: Alertmanager refuses a silence that ends in its past. */
  private RunningService instance(Path config) throws Exception {
    return new RunningService(config, server, Clock.systemUTC(), "outbound-test-token");
  }
}
