package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.ListOptionsBuilder;
import io.fabric8.kubernetes.api.model.NodeList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.gpuremediator.simapi.EmulatedApiServer;
import io.gpuremediator.testing.Nodes;
import io.gpuremediator.testing.Tokens;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The node cache is listed in pages, as the API server serves {@code ?limit=&continue=}, and holds every node. */
class PagedNodeListMockTest {
  private static final int NODES = 1201;

  private EmulatedApiServer server;
  private KubernetesClient client;

  @BeforeEach
  void start() {
    server = EmulatedApiServer.start();
    client = Nodes.noRetry(server.client());
    IntStream.range(0, NODES).forEach(i -> client.nodes().resource(Nodes.gpu("n" + i, "10.0." + (i / 250) + "." + (i % 250 + 1)))
        .create());
  }

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void theEmulatedServerPagesAListFromOneSnapshotAndExpiresAnUnknownToken() {
    NodeList first = client.nodes().list(new ListOptionsBuilder().withLimit(500L).build());
    assertThat(first.getItems()).hasSize(500);
    assertThat(first.getMetadata().getRemainingItemCount()).isEqualTo(701L);
    String token = first.getMetadata().getContinue();
    client.nodes().resource(Nodes.gpu("late", "10.9.0.1")).create(); // after the snapshot: not in this list

    Set<String> names = new HashSet<>();
    first.getItems().forEach(n -> names.add(n.getMetadata().getName()));
    String next = token;
    while (next != null && !next.isEmpty()) {
      NodeList page = client.nodes().list(new ListOptionsBuilder().withLimit(500L).withContinue(next).build());
      page.getItems().forEach(n -> names.add(n.getMetadata().getName()));
      next = page.getMetadata().getContinue();
    }
    assertThat(names).hasSize(NODES).doesNotContain("late");
    NodeList again = client.nodes().list(new ListOptionsBuilder().withLimit(500L).withContinue(token).build());
    assertThat(again.getItems()).as("a token used again: the same page of the same snapshot").hasSize(500)
        .extracting(n -> n.getMetadata().getName()).doesNotContain("late");
    assertThat(again.getMetadata().getRemainingItemCount()).isEqualTo(201L);
    assertThatThrownBy(() -> client.nodes().list(new ListOptionsBuilder().withLimit(500L).withContinue("no-such-token")
        .build())).as("an unknown or expired token").isInstanceOfSatisfying(KubernetesClientException.class,
            e -> assertThat(e.getCode()).isEqualTo(410));
    assertThat(client.nodes().list(new ListOptionsBuilder().withLimit(0L).build()).getItems())
        .as("limit=0 is no limit").hasSize(NODES + 1);
  }

  @Test
  void theNodeCacheHoldsEveryNodeOfAPagedList() {
    try (Fabric8Cluster cluster = new Fabric8Cluster(client, "test", Tokens.LEDGER_KEY.getBytes(StandardCharsets.UTF_8))) {
      cluster.start();
      await().atMost(Duration.ofSeconds(30)).until(cluster::isReady);
      assertThat(cluster.nodes()).hasSize(NODES);
      assertThat(cluster.node("n1200")).isPresent();
    }
  }
}
