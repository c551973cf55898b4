package io.gpuremediator.simapi;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A client that goes away while the server is sending its watches events (a stopped instance, a lost leader) stalls
 * nobody else: the mock's watch, closed, waited on its event loop for its sender thread, which waited on that same
 * event loop to write, up to 30 s; every request on the connections of that loop waited with it. Nor does a write made
 * while such a watch closes lose its answer.
 */
class WatchCloseTest {
  private static final int NODES = 20;
  private static final int WATCHES = 64;
  private static final int ROUNDS = 3;
  private static final int PROBES = 8;
  private final EmulatedApiServer server = EmulatedApiServer.start();
  private final KubernetesClient client = server.client();

  @AfterEach
  void stop() {
    client.close();
    server.close();
  }

  @Test
  void aClientClosedWhileItsWatchesAreSentEventsStallsNoOtherClient() throws Exception {
    for (int i = 0; i < NODES; i++) {
      client.nodes().resource(node(i, 0)).create();
    }
    List<String> answered = new ArrayList<>();
    for (int round = 0; round < ROUNDS; round++) {
      answered.addAll(leaveWhileWritten(round));
    }
    assertThat(answered).hasSize(ROUNDS * PROBES).allMatch(a -> a.endsWith(": " + NODES + " nodes"));
  }

  /** A client's watches hear a stream of writes; the client goes; fresh clients list the nodes while the writes go on. */
  private List<String> leaveWhileWritten(int round) throws InterruptedException {
    KubernetesClient leaving = server.client();
    CountDownLatch heard = new CountDownLatch(WATCHES);
    for (int w = 0; w < WATCHES; w++) {
      leaving.nodes().watch(new Watcher<Node>() {
        private final AtomicBoolean once = new AtomicBoolean();

        @Override
        public void eventReceived(Action action, Node node) {
          if (once.compareAndSet(false, true)) {
            heard.countDown();
          }
        }

        @Override
        public void onClose(WatcherException cause) {}
      });
    }
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicReference<RuntimeException> lost = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      try {
        for (int write = 1; writing.get() && write < 10_000; write++) {
          client.nodes().resource(node(write % NODES, write)).update();
        }
      } catch (RuntimeException e) {
        lost.set(e);
      }
    });
    writer.start();
    List<String> answered = new ArrayList<>();
    try {
      assertThat(heard.await(60, TimeUnit.SECONDS)).as("every watch hears the writes").isTrue();
      leaving.close(); // while events are on their way to every one of its watches
      // Each fresh client is a new connection, so the probes land on every event loop of the server.
      for (int probe = 0; probe < PROBES; probe++) {
        try (KubernetesClient fresh = new KubernetesClientBuilder().withConfig(new ConfigBuilder()
            .withMasterUrl(server.url()).withRequestRetryBackoffLimit(0).withRequestTimeout(10_000).build()).build()) {
          answered.add("round " + round + " probe " + probe + ": " + fresh.nodes().list().getItems().size() + " nodes");
        }
      }
    } finally {
      writing.set(false);
      writer.join(60_000);
    }
    assertThat(lost.get()).as("no write lost its answer").isNull();
    return answered;
  }

  private static Node node(int i, int round) {
    return new NodeBuilder().withNewMetadata().withName("node-" + i).addToLabels("round", String.valueOf(round)).addToAnnotations("padding", "x".repeat(20_000))
        .endMetadata().build();
  }
}
