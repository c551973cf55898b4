package io.gpuremediator.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Alerts;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.RunningService;
import io.gpuremediator.testing.ServiceConfig;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The review's low items about clients, each against the whole service over raw sockets (a browser's or an attacker's
 * bytes, not a well-behaved client's): a Host that names another site (DNS rebinding) reached every handler; slow
 * bodies from one client held every webhook place.
 */
class HostileClientsMockTest {
  private static final String NODE = "gpu-node-1";
  @TempDir Path dir;
  private EmulatedApiServer server;
  private KubernetesClient client;
  private final List<Socket> sockets = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (Socket s : sockets) {
      s.close();
    }
    client.close();
    server.close();
  }

  private RunningService start() throws Exception {
    return start("limits: {webhook_queue: 8, body_timeout: 1s}\nhttp: {allowed_hosts: [remediator.example.com]}\n",
        Integer.MAX_VALUE);
  }

  /** The service with {@code more} config, its Kubernetes requests at most {@code qps} a second (a burst of one). */
  private RunningService start(String more, int qps) throws Exception {
    server = EmulatedApiServer.start();
    client = server.client();
    Nodes.createFleet(client, 4);
    Path config = ServiceConfig.writeOpen(dir, "safety: {max_unavailable: 100%, rate_limit: 100/1h}\n", more);
    KubeApi kube = qps == Integer.MAX_VALUE ? KubeApi.of(client) : KubeApi.of(client, qps, 1, 16);
    return RunningService.ready(config, kube, Alerts.liveClock(), Optional.empty());
  }

  private static String alerts(String node) {
    return "{\"version\":\"4\",\"status\":\"firing\",\"receiver\":\"gpu-remediator\",\"groupKey\":\"g\",\"alerts\":[{"
        + "\"status\":\"firing\",\"labels\":{\"alertname\":\"GpuXidHardwareError\",\"node\":\"" + node + "\","
        + "\"severity\":\"critical\",\"remediate\":\"true\",\"xid\":\"79\",\"gpu\":\"3\"},"
        + "\"annotations\":{},\"startsAt\":\"2026-11-22T10:00:00Z\",\"endsAt\":\"0001-01-01T00:00:00Z\","
        + "\"fingerprint\":\"0123abcd\"}]}";
  }

  /** Opens a connection and sends a webhook's head, and {@code body} of a body announced {@code length} long. */
  private Socket send(RunningService s, String host, int length, String body) throws IOException {
    Socket socket = new Socket("127.0.0.1", s.port());
    sockets.add(socket);
    socket.setSoTimeout(15_000); // the deadline on every answer read below
    OutputStream out = socket.getOutputStream();
    out.write(("POST /api/v1/alerts HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\n"
        + "Content-Length: " + length + "\r\n\r\n" + body).getBytes(StandardCharsets.UTF_8));
    out.flush();
    return socket;
  }

  /** What the service answered on {@code socket}: its status line and the rest, as far as it sent before closing. */
  private static String answer(Socket socket) throws IOException {
    InputStream in = socket.getInputStream();
    ByteArrayOutputStream got = new ByteArrayOutputStream();
    byte[] buf = new byte[4096];
    try {
      for (int n; (n = in.read(buf)) > 0; ) {
        got.write(buf, 0, n);
        String text = got.toString(StandardCharsets.UTF_8);
        int head = text.indexOf("\r\n\r\n");
        int length = text.indexOf("content-length: ");
        if (head > 0 && length > 0) {
          int declared = Integer.parseInt(text.substring(length + 16, text.indexOf("\r\n", length)).strip());
          if (got.size() >= head + 4 + declared) {
            break;
          }
        }
      }
    } catch (SocketTimeoutException e) {
      throw new AssertionError("no whole answer within 15 s; got: " + got.toString(StandardCharsets.UTF_8), e);
    }
    return got.toString(StandardCharsets.UTF_8);
  }

  @Test
  void aHostThatNamesAnotherSiteIsAnsweredFourTwentyOneAndActsOnNothing() throws Exception {
    try (RunningService s = start()) {
      String body = alerts(NODE);
      String rebound = answer(send(s, "evil.example.net:8080", body.length(), body));
      assertThat(rebound).startsWith("HTTP/1.1 421").contains("Host evil.example.net is not a name of this service");
      assertThat(client.nodes().withName(NODE).get().getSpec().getUnschedulable()).as("nothing acted").isNull();
      for (String host : List.of("remediator.example.com", "gpu-remediator.gpu-remediator.svc:8080", "127.0.0.1:1",
          "gpu-remediator", "localhost")) {
        assertThat(answer(send(s, host, body.length(), body))).as(host).startsWith("HTTP/1.1 200");
      }
    }
  }

  /**
   * idle_timeout cut a webhook still being decided: acted on, its answer lost. Three quarantines through an API throttle
   * of one request a second take seconds of silence on the connection, far past an idle_timeout of 1 s; the answer
   * still comes, on the same connection.
   */
  @Test
  void aWebhookDecidedLongerThanTheIdleTimeoutIsStillAnswered() throws Exception {
    try (RunningService s = start("limits: {idle_timeout: 1s}\n", 1)) {
      String body = "{\"version\":\"4\",\"status\":\"firing\",\"receiver\":\"gpu-remediator\",\"groupKey\":\"g\","
          + "\"alerts\":[" + String.join(",", List.of(alertOf("gpu-node-1"), alertOf("gpu-node-2"), alertOf("gpu-node-3")))
          + "]}";
      long started = System.nanoTime();
      String answer = answer(send(s, "127.0.0.1", body.length(), body));
      assertThat(answer).startsWith("HTTP/1.1 200").contains("actions_applied");
      assertThat((System.nanoTime() - started) / 1e9).as("decided in longer than idle_timeout").isGreaterThan(1.5);
    }
  }

  private static String alertOf(String node) {
    String one = alerts(node);
    return one.substring(one.indexOf("\"alerts\":[") + 10, one.length() - 2).replace("0123abcd", "0123abc" + node.charAt(node.length() - 1));
  }

  @Test
  void slowBodiesFromOneClientHoldAQuarterOfTheWebhookPlacesUntilTheirBodyTimeout() throws Exception {
    try (RunningService s = start()) {
      String body = alerts(NODE);
      // webhook_queue 8: one client address may read at most 2 bodies at once.
      Socket first = send(s, "127.0.0.1", body.length(), body.substring(0, 10));
      Socket second = send(s, "127.0.0.1", body.length(), body.substring(0, 10));
      String third = answer(send(s, "127.0.0.1", body.length(), body.substring(0, 10)));
      assertThat(third).startsWith("HTTP/1.1 503").contains("too many webhook bodies from 127.0.0.1 still being read");
      // Dripping a byte now and then defeats any idle timeout; the body's own deadline does not move.
      first.getOutputStream().write(body.substring(10, 11).getBytes(StandardCharsets.UTF_8));
      assertThat(answer(first)).startsWith("HTTP/1.1 408").contains("the body did not arrive within limits.body_timeout");
      assertThat(answer(second)).startsWith("HTTP/1.1 408");
      assertThat(first.getInputStream().read()).as("closed after its 408").isEqualTo(-1);
      // Four more rounds: ten bodies timed out in all, more than the 8 places, each place given back.
      for (int round = 0; round < 4; round++) {
        Socket a = send(s, "127.0.0.1", body.length(), body.substring(0, 10));
        Socket b = send(s, "127.0.0.1", body.length(), body.substring(0, 10));
        assertThat(answer(a)).as("round " + round).startsWith("HTTP/1.1 408");
        assertThat(answer(b)).as("round " + round).startsWith("HTTP/1.1 408");
      }
      assertThat(answer(send(s, "127.0.0.1", body.length(), body))).as("the places are given back")
          .startsWith("HTTP/1.1 200");
      assertThat(s.get("/metrics").body())
          .contains("remediator_http_requests_limited_total{limit=\"webhook_client\",} 1.0")
          .contains("remediator_http_requests_limited_total{limit=\"webhook_body_timeout\",} 10.0");
    }
  }
}
