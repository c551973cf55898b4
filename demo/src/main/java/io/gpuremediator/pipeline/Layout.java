package io.gpuremediator.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/** Where the project's files and built jars are, and the work directory a run writes to. */
public record Layout(Path root, Path work) {
  public Layout {
    root = root.toAbsolutePath().normalize();
    work = work.toAbsolutePath().normalize();
  }

  public Path remediatorJar() {
    return root.resolve("remediator/target/remediator.jar");
  }

  public Path simulatorJar() {
    return root.resolve("dcgm/simulator/target/dcgm-simulator.jar");
  }

  /** The jar that holds the simulated cluster (this module's). */
  public Path demoJar() {
    return root.resolve("demo/target/demo.jar");
  }

  public Path countersCsv() {
    return root.resolve("dcgm/counters.csv");
  }

  public Path scrapeConfig() {
    return root.resolve("dcgm/prometheus.yml");
  }

  public Path alertmanagerConfig() {
    return root.resolve("alerts/alertmanager.yml");
  }

  public Path playbooks() {
    return root.resolve("deploy/playbooks");
  }

  /** The fakes of a GPU node's tools the simulated cluster's Jobs run against (simapi's JobKubelet). */
  public Path nodeTools() {
    return root.resolve("simapi/node-tools");
  }

  /** The recorded real outputs those fakes answer from. */
  public Path recorded() {
    return root.resolve("tests/real");
  }

  /**
   * The playbooks as deploy/karpenter installs them (the simulated cluster's GPU nodes are Karpenter's): the shipped ones,
   * with the overlay's replace-through-Karpenter playbooks in place of those of the same file name.
   */
  public List<Path> karpenterPlaybooks() throws IOException {
    Path overlay = root.resolve("deploy/karpenter");
    List<Path> out = new ArrayList<>();
    try (Stream<Path> shipped = Files.list(playbooks())) {
      for (Path p : shipped.filter(f -> f.toString().endsWith(".yaml")).sorted().toList()) {
        Path replaced = overlay.resolve(p.getFileName());
        out.add(Files.exists(replaced) ? replaced : p);
      }
    }
    return out;
  }

  /** Where this run's configs, logs, data and PIDs go; emptied at the start of a run. */
  public Path run() {
    return work.resolve("run");
  }

  /** Fails with every missing file named, and how to build them. */
  public void requireBuilt() {
    List<String> missing = new ArrayList<>();
    for (Path p : List.of(remediatorJar(), simulatorJar(), demoJar(), countersCsv(), scrapeConfig(), alertmanagerConfig(), playbooks(),
        nodeTools(), recorded())) {
      if (!Files.exists(p)) {
        missing.add(root.relativize(p).toString());
      }
    }
    if (!missing.isEmpty()) {
      throw new IllegalStateException("missing " + String.join(", ", missing) + " (run `make demo`, which builds them)");
    }
  }
}
