package io.gpuremediator.bench;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.gpuremediator.config.ConfigLoader;
import io.gpuremediator.kube.KubeApi;
import io.gpuremediator.service.RemediatorService;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.zip.GZIPInputStream;

/**
 * A storm of {@value #NODES} nodes at once: one webhook naming {@value #NODES} nodes' hardware XIDs against the default
 * limits (the breaker at 5 nodes), in the service against the mock API server in this JVM. Its figures: the breaker's
 * answer time (the first storm, then the median of more, each with new start times: new episodes, the breaker reset
 * between them) against a bare parse of the same payload, what the fleet state weighs in its ConfigMap after them (bytes, bytes per node it remembers, and the
 * nodes a ConfigMap's 1 MiB would hold at that rate), and what one node's ledger weighs once it is quarantined (the
 * {@code gpu-remediator.io/state} annotation of a node of a playbook that quarantines, collects, drains, reboots and
 * diagnoses).
 */
final class BigStorm {
  static final int NODES = 5_000;
  private static final int ROUNDS = 5;
  /** What the API server holds in one ConfigMap. */
  private static final int CONFIGMAP_BYTES = 1024 * 1024;
  private static final String LEDGER = "gpu-remediator.io/state";
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  private BigStorm() {}

  static void run(Path playbooks, Path work) throws Exception {
    try (MockApiServer api = MockApiServer.fleet();
        KubernetesClient client = new KubernetesClientBuilder().withConfig(new ConfigBuilder(api.client().getConfiguration())
            .withRequestRetryBackoffLimit(0).build()).build()) {
      Path config = work.resolve("big-storm-remediator.yaml");
      Files.writeString(config, "listen: 127.0.0.1:0\nauth: {insecure_no_auth: true}\nplaybooks: [" + playbooks.toAbsolutePath()
          + "]\nleader_election: {enabled: false}\n" + Bench.LOAD_LIMITS
          + MockApiServer.SELECTOR);
      try (RemediatorService service = new RemediatorService(ConfigLoader.load(config).config().orElseThrow(), KubeApi.of(client),
          Clock.systemUTC())) {
        int port = Bench.awaitReady(service.start());
        int bare = ThroughputServer.bare();
        List<Double> answers = new ArrayList<>();
        List<Double> parses = new ArrayList<>();
        int payloadBytes = 0;
        for (int round = 0; round <= ROUNDS; round++) {
          String body = Payloads.xidStorm(0, NODES, Instant.now().plusSeconds(round).toString());
          payloadBytes = body.getBytes(StandardCharsets.UTF_8).length;
          parses.add(Bench.post(bare, body, "\"alerts\":" + NODES));
          answers.add(Bench.post(port, body, "\"suppressed\":" + NODES));
          reset(port);
        }
        double first = answers.get(0);
        List<Double> rest = new ArrayList<>(answers.subList(1, answers.size()));
        Collections.sort(rest);
        List<Double> parsed = new ArrayList<>(parses.subList(1, parses.size()));
        Collections.sort(parsed);
        double p50 = rest.get(rest.size() / 2);
        double parse50 = parsed.get(parsed.size() / 2);
        System.out.printf(Locale.ROOT, "a webhook of %,d nodes' XIDs (%,d bytes), all refused (breaker_open): the first answered"
            + " in %.0f ms, the next %d (new episodes each) in p50 %.0f ms, max %.0f ms%n", NODES, payloadBytes, first,
            rest.size(), p50, rest.get(rest.size() - 1));
        System.out.printf(Locale.ROOT, "the same payload posted to a bare Vert.x endpoint that only parses it, right before each:"
            + " p50 %.0f ms; the storm refused in %.2fx that; target < 2x -> %s%n", parse50, p50 / parse50,
            p50 < 2 * parse50 ? "MET" : "NOT MET");
        stateSize(client);
        ledgerSize(client, port);
      }
    }
  }

  /** The fleet state's ConfigMap once it is written after the storms (its writes follow the answers). */
  private static void stateSize(KubernetesClient client) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    ConfigMap state = null;
    while (System.nanoTime() < deadline && (state == null || sightings(state) == 0)) {
      state = client.configMaps().inAnyNamespace().list().getItems().stream()
          .filter(c -> c.getBinaryData() != null && c.getBinaryData().containsKey("sightings.json.gz")).findFirst()
          .orElse(null);
      Thread.sleep(100);
    }
    if (state == null) {
      throw new IllegalStateException("no fleet state ConfigMap with sightings within 30 s of the storms");
    }
    long bytes = 0;
    for (String v : state.getData().values()) {
      bytes += v.getBytes(StandardCharsets.UTF_8).length;
    }
    for (String v : state.getBinaryData().values()) {
      bytes += Base64.getDecoder().decode(v).length;
    }
    double perNode = (double) bytes / NODES;
    double plainPerNode = (double) gunzipped(state) / NODES;
    System.out.printf(Locale.ROOT, "the fleet state after them: %,d bytes in its ConfigMap (%,d of them the gzipped sightings),"
        + " %.1f bytes per node it remembers; at that rate a ConfigMap's 1 MiB holds %,d nodes; target: 20,000 nodes fit -> %s%n",
        bytes, sightings(state), perNode, (long) (CONFIGMAP_BYTES / perNode), CONFIGMAP_BYTES / perNode >= 20_000 ? "MET"
        : "NOT MET");
    // The storm's names are numbered and its times one instant: gzip does better on them than on a fleet's own names.
    System.out.printf(Locale.ROOT, "the sightings before gzip: %.1f bytes per node; were gzip to gain nothing, 1 MiB would hold"
        + " %,d nodes%n", plainPerNode, (long) (CONFIGMAP_BYTES / plainPerNode));
  }

  private static long gunzipped(ConfigMap c) {
    try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(Base64.getDecoder()
        .decode(c.getBinaryData().get("sightings.json.gz"))))) {
      return in.readAllBytes().length;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static int sightings(ConfigMap c) {
    return Base64.getDecoder().decode(c.getBinaryData().get("sightings.json.gz")).length;
  }

  /** One alert after the breaker's reset, on the node no storm named; its ledger once the node is quarantined. */
  private static void ledgerSize(KubernetesClient client, int port) throws Exception {
    Bench.post(port, Payloads.single("firing", NODES), "\"reason\":\"actions_applied\"");
    String name = MockApiServer.nodeName(NODES);
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    Node n = client.nodes().withName(name).get();
    while (System.nanoTime() < deadline && !(Bench.tainted(n) && n.getMetadata().getAnnotations() != null
        && n.getMetadata().getAnnotations().containsKey(LEDGER))) {
      Thread.sleep(50);
      n = client.nodes().withName(name).get();
    }
    if (n.getMetadata().getAnnotations() == null || !n.getMetadata().getAnnotations().containsKey(LEDGER)) {
      throw new IllegalStateException(name + " has no ledger 30 s after its alert was applied");
    }
    System.out.printf(Locale.ROOT, "one node's ledger once quarantined by gpu-xid-reboot (its episode, its claims): %,d bytes in"
        + " its %s annotation%n", n.getMetadata().getAnnotations().get(LEDGER).getBytes(StandardCharsets.UTF_8).length, LEDGER);
  }

  private static void reset(int port) throws Exception {
    HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/api/v1/breaker/reset"))
        .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString("{}")).build(),
        HttpResponse.BodyHandlers.discarding());
  }
}
