package io.gpuremediator.bench;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The service as a process ({@code java -jar remediator.jar serve}, the JVM flags it is deployed with, pinned to core 0) over a
 * mock API server holding realistic GPU nodes: start to ready, idle RSS, heap after a full GC, and dry-run
 * decision throughput with that cache (the load generator pinned to core 1).
 */
final class Scale {
  private static final Pattern HEAP_USED = Pattern.compile("used (\\d+)K");
  private static final Pattern LIMIT = Pattern.compile("limits: \\{memory: (\\d+)Mi\\}");

  private Scale() {}

  /** {@code classBytes}: the live heap by class after a full GC (jcmd GC.class_histogram), bytes. */
  record Figures(int nodes, int others, double readySeconds, long rssMiB, long heapMiB, double alertsPerSecond,
      Map<String, Long> classBytes) {}

  private static final Pattern HISTOGRAM_ROW = Pattern.compile("^\\s*\\d+:\\s+(\\d+)\\s+(\\d+)\\s+(\\S+)");

  /**
   * What each selected node costs the heap, by the structure it is held in: the difference of two runs' class
   * histograms over the difference of their nodes, largest first; each line {@code 4.1 KiB byte[] (group)}.
   */
  static List<String> perNode(Figures small, Figures large) {
    int nodes = large.nodes() - small.nodes();
    Map<String, Long> groups = new TreeMap<>();
    List<Map.Entry<String, Long>> classes = new ArrayList<>();
    for (Map.Entry<String, Long> e : large.classBytes().entrySet()) {
      long grown = e.getValue() - small.classBytes().getOrDefault(e.getKey(), 0L);
      classes.add(Map.entry(e.getKey(), grown));
      groups.merge(group(e.getKey()), grown, Long::sum);
    }
    classes.sort(Map.Entry.<String, Long>comparingByValue().reversed());
    List<String> lines = new ArrayList<>();
    long total = groups.values().stream().mapToLong(Long::longValue).sum();
    lines.add(String.format(Locale.ROOT, "all: %.1f KiB a node", total / 1024.0 / nodes));
    groups.entrySet().stream().sorted(Map.Entry.<String, Long>comparingByValue().reversed()).forEach(g ->
        lines.add(String.format(Locale.ROOT, "%.1f KiB %s", g.getValue() / 1024.0 / nodes, g.getKey())));
    classes.stream().limit(10).forEach(c -> lines.add(String.format(Locale.ROOT, "  %.2f KiB %s (%s)",
        c.getValue() / 1024.0 / nodes, c.getKey(), group(c.getKey()))));
    return lines;
  }

  /** The structure a class's instances make up, for the heap's account per node. */
  private static String group(String type) {
    if (type.startsWith("io.fabric8.kubernetes.api.model.")) {
      return "the cached Nodes' fabric8 model objects";
    } else if (type.startsWith("io.gpuremediator.")) {
      return "the service's own view of the nodes";
    } else if (type.equals("java.lang.String") || type.equals("[B")) {
      return "strings (names, label and annotation values)";
    } else if (type.startsWith("java.util.") || type.startsWith("[Ljava.util.") || type.equals("[Ljava.lang.Object;")) {
      return "collections (the labels', annotations' and lists' maps and their arrays)";
    } else if (type.startsWith("io.fabric8.")) {
      return "the fabric8 client's informer and its cache";
    }
    return "other";
  }

  /**
   * The JVM flags the service runs with when deployed: the image's {@code JAVA_TOOL_OPTIONS} (Dockerfile) and, for the
   * container's memory limit the JVM sizes itself by, {@code -XX:MaxRAM} set to the Deployment's limit.
   */
  static List<String> deployedJvmFlags(Path root) throws IOException {
    String dockerfile = Files.readString(root.resolve("Dockerfile")).replace("\\\n", " ");
    Matcher options = Pattern.compile("ENV JAVA_TOOL_OPTIONS=\"([^\"]*)\"").matcher(dockerfile);
    Matcher limit = LIMIT.matcher(Files.readString(root.resolve("deploy/base/deployment.yaml")));
    if (!options.find() || !limit.find()) {
      throw new IllegalStateException("no JAVA_TOOL_OPTIONS in the Dockerfile or no memory limit in deploy/base/deployment.yaml");
    }
    List<String> flags = new ArrayList<>(List.of(options.group(1).trim().split("\\s+")));
    flags.add("-XX:MaxRAM=" + limit.group(1) + "m");
    return flags;
  }

  /** The Deployment's memory limit (deploy/base/deployment.yaml), in MiB. */
  static long deployedMemoryLimitMiB(Path root) throws IOException {
    Matcher limit = LIMIT.matcher(Files.readString(root.resolve("deploy/base/deployment.yaml")));
    if (!limit.find()) {
      throw new IllegalStateException("no memory limit in deploy/base/deployment.yaml");
    }
    return Long.parseLong(limit.group(1));
  }

  /**
   * {@code nodes} realistic GPU nodes and {@code others} realistic nodes without GPUs; the service's node_selector is
   * the Deployment's ({@code nvidia.com/gpu.present=true}), so it watches the GPU nodes only.
   */
  static Figures run(Path jar, Path playbooks, Path work, int nodes, int others, List<String> jvmFlags) throws Exception {
    long created = System.nanoTime();
    try (MockApiServer api = new MockApiServer(nodes, others)) {
      double seeding = (System.nanoTime() - created) / 1e9;
      int port;
      try (ServerSocket s = new ServerSocket(0)) {
        port = s.getLocalPort();
      }
      Path config = work.resolve("scale-" + nodes + ".yaml");
      Files.writeString(config, "listen: 127.0.0.1:" + port + "\nauth: {insecure_no_auth: true}\ndry_run: true\nplaybooks: ["
          + playbooks.toAbsolutePath() + "]\nnode_selector: nvidia.com/gpu.present=true\nkubernetes: {kubeconfig: "
          + api.writeKubeconfig(work.resolve("scale-kubeconfig").toAbsolutePath()) + "}\nleader_election: {enabled: false}\n"
          + "safety: " + Bench.WIDE_LIMITS + "\n" + Bench.LOAD_LIMITS);
      String java = ProcessHandle.current().info().command().orElse("java");
      long started = System.nanoTime();
      List<String> command = new ArrayList<>(List.of("taskset", "-c", "0", java));
      command.addAll(jvmFlags);
      command.addAll(List.of("-jar", jar.toString(), "serve", "--config", config.toString()));
      Process service = new ProcessBuilder(command).redirectOutput(work.resolve("scale-" + nodes + ".log").toFile()).redirectErrorStream(true).start();
      try {
        Bench.awaitReady(port);
        double ready = (System.nanoTime() - started) / 1e9;
        Thread.sleep(10_000); // idle for 10 s after ready, as the memory section measures it
        long rss = Bench.rssKiB(service.pid()) / 1024;
        long heap = heapAfterFullGc(service.pid());
        Map<String, Long> classBytes = classHistogram(service.pid());
        Path loadLog = work.resolve("scale-" + nodes + "-load.log");
        Process load = new ProcessBuilder("taskset", "-c", "1", java, "-Xmx1g", "-cp", System.getProperty("java.class.path"),
            LoadGenerator.class.getName(), Integer.toString(port), Integer.toString(Bench.STORM), "8", "10", "15")
            .redirectOutput(loadLog.toFile()).redirectErrorStream(true).start();
        if (!load.waitFor(120, TimeUnit.SECONDS) || load.exitValue() != 0) {
          throw new IllegalStateException("load generator failed; see " + loadLog);
        }
        String[] r = Files.readAllLines(loadLog).stream().filter(l -> l.startsWith("RESULT ")).findFirst()
            .orElseThrow(() -> new IllegalStateException("no result in " + loadLog)).split(" ");
        double alerts = Double.parseDouble(r[1]) * Bench.STORM;
        System.out.printf(Locale.ROOT, "%,6d selected of %,d nodes (seeded in %.0f s): ready %.1f s after start, idle RSS %d MiB,"
            + " heap after full GC %d MiB, dry-run %.0f alerts/s%n", nodes, nodes + others, seeding, ready, rss, heap, alerts);
        Files.deleteIfExists(work.resolve("scale-" + nodes + ".log")); // every dry-run decision logged: hundreds of MB
        return new Figures(nodes, others, ready, rss, heap, alerts, classBytes);
      } finally {
        service.destroy();
        if (!service.waitFor(10, TimeUnit.SECONDS)) {
          service.destroyForcibly().waitFor();
        }
      }
    }
  }

  /**
   * Runs a full GC in the process (jcmd) and reads the heap in use after it: the sum over the heap's spaces
   * (one for G1; young and tenured for the serial collector, which the JVM picks when it sees one CPU).
   */
  private static long heapAfterFullGc(long pid) throws Exception {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    jcmd(jcmd, pid, "GC.run");
    String info = jcmd(jcmd, pid, "GC.heap_info");
    int metaspace = info.indexOf("Metaspace");
    Matcher m = HEAP_USED.matcher(metaspace < 0 ? info : info.substring(0, metaspace));
    long kib = 0;
    boolean found = false;
    while (m.find()) {
      kib += Long.parseLong(m.group(1));
      found = true;
    }
    if (!found) {
      throw new IllegalStateException("no heap figure in jcmd GC.heap_info: " + info);
    }
    return kib / 1024;
  }

  /** The live objects by class after a full GC, in bytes: {@code jcmd GC.class_histogram} (which runs one first). */
  private static Map<String, Long> classHistogram(long pid) throws Exception {
    String out = jcmd(Path.of(System.getProperty("java.home"), "bin", "jcmd"), pid, "GC.class_histogram");
    Map<String, Long> bytes = new HashMap<>();
    for (String line : out.split("\n")) {
      Matcher m = HISTOGRAM_ROW.matcher(line);
      if (m.find()) {
        bytes.merge(m.group(3), Long.parseLong(m.group(2)), Long::sum);
      }
    }
    if (bytes.isEmpty()) {
      throw new IllegalStateException("no class histogram from jcmd: " + out.substring(0, Math.min(300, out.length())));
    }
    return bytes;
  }

  private static String jcmd(Path jcmd, long pid, String command) throws Exception {
    Process p = new ProcessBuilder(List.of(jcmd.toString(), Long.toString(pid), command)).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("jcmd " + command + " failed: " + out);
    }
    return out;
  }
}
