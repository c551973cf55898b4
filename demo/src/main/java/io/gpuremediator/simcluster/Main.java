package io.gpuremediator.simcluster;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;

/**
 * {@code java -cp demo.jar io.gpuremediator.simcluster.Main --nodes-from http://127.0.0.1:P/nodes
 * --kubeconfig FILE [--listen 127.0.0.1:0] [--port-file FILE] [--node-tools DIR --recorded DIR --kubelet-dir DIR]}
 * (the last three: evidence Jobs run their commands against simapi's fakes of a node's tools). Seeds the nodes the DCGM simulator
 * simulates, writes the kubeconfig, then the port file (so a port file means ready), and serves until
 * it is sent SIGTERM.
 */
public final class Main {
  private Main() {}

  /** Runs the simulated cluster. */
  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i + 1 < args.length; i += 2) {
      flags.put(args[i], args[i + 1]);
    }
    List<String> known = List.of("--nodes-from", "--kubeconfig", "--listen", "--port-file", "--node-tools", "--recorded",
        "--kubelet-dir");
    if (args.length % 2 != 0 || !known.containsAll(flags.keySet()) || !flags.containsKey("--nodes-from")
        || !flags.containsKey("--kubeconfig") || !List.of(0, 3).contains(Stream.of("--node-tools", "--recorded",
        "--kubelet-dir").filter(flags::containsKey).toList().size())) {
      System.err.println("usage: sim-cluster --nodes-from URL --kubeconfig FILE [--listen 127.0.0.1:0] [--port-file FILE]"
          + " [--node-tools DIR --recorded DIR --kubelet-dir DIR]");
      System.exit(2);
    }
    List<SimNode> nodes = fetchNodes(URI.create(flags.get("--nodes-from")));
    String[] listen = flags.getOrDefault("--listen", "127.0.0.1:0").split(":");
    Optional<SimCluster.Kubelet> kubelet = flags.containsKey("--node-tools") ? Optional.of(new SimCluster.Kubelet(
        Path.of(flags.get("--node-tools")), Path.of(flags.get("--recorded")), Path.of(flags.get("--kubelet-dir"))))
        : Optional.empty();
    SimCluster cluster = SimCluster.start(listen[0], Integer.parseInt(listen[1]), kubelet);
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      cluster.close();
      stopped.countDown();
    }, "sim-cluster-stop"));
    int pods = cluster.seed(nodes);
    cluster.writeKubeconfig(Path.of(flags.get("--kubeconfig")));
    String port = cluster.url().replaceAll(".*:(\\d+)/?$", "$1");
    if (flags.containsKey("--port-file")) {
      Path file = Path.of(flags.get("--port-file"));
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, port);
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
    System.err.println("sim-cluster: Kubernetes API on " + cluster.url() + " with " + nodes.size() + " nodes and " + pods
        + " pods; kubeconfig " + flags.get("--kubeconfig"));
    stopped.await();
  }

  private static List<SimNode> fetchNodes(URI uri) throws Exception {
    HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
    if (r.statusCode() != 200) {
      throw new IllegalStateException(uri + " answered " + r.statusCode());
    }
    return SimNode.listFrom(new ObjectMapper().readTree(r.body()));
  }
}
