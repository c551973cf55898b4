package io.gpuremediator.dcgmsim;

import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code java -jar dcgm-simulator.jar --csv dcgm/counters.csv [--gpu-nodes 8] [--trn-nodes 2]
 * [--listen 127.0.0.1:0] [--port-file FILE] [--no-node-label] [--dump]}. With {@code --dump} it prints every
 * endpoint's series, with one fault of each kind injected, and exits (for {@code promtool check metrics}).
 * With {@code --no-node-label} the exporters' series carry only their own labels, and the scrape config's
 * relabeling must add {@code node}, as in production (the demo runs it that way).
 */
public final class Main {
  private Main() {}

  /** Runs the simulator. */
  public static void main(String[] args) throws Exception {
    Map<String, String> flags = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--dump") || args[i].equals("--no-node-label")) {
        flags.put(args[i], "true");
      } else if (i + 1 < args.length && args[i].startsWith("--")) {
        flags.put(args[i], args[++i]);
      } else {
        System.err.println("dcgm-simulator: unknown argument " + args[i]);
        System.exit(2);
      }
    }
    CountersCsv csv = CountersCsv.read(Path.of(flags.getOrDefault("--csv", "dcgm/counters.csv")));
    SimFleet fleet = new SimFleet(Integer.parseInt(flags.getOrDefault("--gpu-nodes", "8")),
        Integer.parseInt(flags.getOrDefault("--trn-nodes", "2")));
    MetricsText text = new MetricsText(csv, fleet, !flags.containsKey("--no-node-label"));
    if (flags.containsKey("--dump")) {
      System.out.print(Dump.everyFault(fleet, text));
      return;
    }
    String[] listen = flags.getOrDefault("--listen", "127.0.0.1:0").split(":");
    var server = new SimulatorServer(fleet, text).listen(Vertx.vertx(), listen[0], Integer.parseInt(listen[1]));
    System.err.println("dcgm-simulator listening on " + listen[0] + ":" + server.actualPort() + " with "
        + fleet.gpuNodes().size() + " GPU nodes and " + fleet.trnNodes().size() + " Trainium nodes");
    if (flags.containsKey("--port-file")) {
      // Written whole or not at all: whoever polls for the file never reads it empty.
      Path file = Path.of(flags.get("--port-file"));
      Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
      Files.writeString(tmp, Integer.toString(server.actualPort()));
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }
  }
}
