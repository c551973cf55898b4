package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.Bmc;
import io.gpuremediator.config.RemediatorConfig.Redfish;
import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.outbound.BmcDirectory;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import io.gpuremediator.yaml.YamlFile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The BMC list an operator wrote: {@code cloud.redfish.bmcs}, and {@code bmcs_file} (a mounted ConfigMap: {@code
 * bmcs: [...]}) read again at each lookup, so an edited ConfigMap needs no restart. A node is found by its name or
 * its {@code spec.providerID}; two entries that give it different BMCs are refused, as is a file that does not decode.
 */
public final class ConfiguredBmcs implements BmcDirectory {
  private final Redfish redfish;

  /** The list {@code redfish} configures. */
  public ConfiguredBmcs(Redfish redfish) {
    this.redfish = redfish;
  }

  @Override
  public BmcAddress find(String node, Optional<String> providerId) throws OutboundException {
    List<Bmc> all = new ArrayList<>(redfish.bmcs());
    if (redfish.bmcsFile().isPresent()) {
      all.addAll(fromFile(redfish.bmcsFile().get()));
    }
    List<BmcAddress> found = new ArrayList<>();
    for (Bmc bmc : all) {
      boolean byName = bmc.node().map(node::equals).orElse(false);
      boolean byProvider = bmc.providerId().isPresent() && bmc.providerId().equals(providerId);
      if ((byName || byProvider) && found.stream().noneMatch(f -> f.url().equals(bmc.address().url()))) {
        found.add(bmc.address());
      }
    }
    if (found.isEmpty()) {
      throw OutboundException.refused("no BMC is written for " + node + providerId.map(p -> " (providerID " + p + ")")
          .orElse("") + " in cloud.redfish.bmcs" + redfish.bmcsFile().map(f -> " or " + f).orElse(""));
    }
    if (found.size() > 1) {
      throw OutboundException.refused("two BMCs are written for " + node + ": " + found.get(0).url().getHost() + " ("
          + found.get(0).source() + ") and " + found.get(1).url().getHost() + " (" + found.get(1).source() + ")");
    }
    return found.get(0);
  }

  private List<Bmc> fromFile(Path file) throws OutboundException {
    Problems problems = new Problems(file.toString());
    Path base = file.toAbsolutePath().getParent();
    List<Bmc> bmcs = YamlFile.read(file, problems).flatMap(root -> MapReader.of(root, file.getFileName().toString(),
        problems)).map(m -> {
          List<Bmc> listed = m.list("bmcs").map(items -> RedfishConfig.entries(items, base, redfish.caFile().isPresent(),
              redfish.insecureHttp(), "bmcs", problems)).orElse(List.of());
          if (!m.has("bmcs")) {
            problems.add(m.node(), "missing required key \"bmcs\" in " + file.getFileName());
          }
          m.finish();
          return listed;
        }).orElse(List.of());
    if (!problems.isEmpty()) {
      throw OutboundException.transientFailure("the BMC list " + file + " cannot be used: " + String.join("; ",
          problems.messages().subList(0, Math.min(3, problems.messages().size()))));
    }
    return bmcs;
  }
}
