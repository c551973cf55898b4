package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.Bmc;
import io.gpuremediator.config.RemediatorConfig.Redfish;
import io.gpuremediator.outbound.BmcAddress;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/**
 * Decodes {@code cloud.redfish}: the fleet's BMC credentials and CA, and which BMC is which node's ({@code bmcs} in
 * the config, {@code bmcs_file} a mounted ConfigMap of the same list), each entry {@code {node | provider_id, url,
 * credentials_file?}}. The BMC is never read from the Node: its own kubelet can write its annotations.
 */
final class RedfishConfig {
  /** A node's name: a DNS subdomain. */
  private static final Pattern NODE = Pattern.compile("[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?");
  private static final Pattern SYSTEM_PATH = Pattern.compile("(/redfish/v1/Systems/[A-Za-z0-9._~-]+)?/?");
  private static final int MAX_BMCS = 100_000;

  private RedfishConfig() {}

  static Optional<Redfish> decode(MapReader r, Path base, Problems problems) {
    Optional<Path> credentials = r.requiredString("credentials_file").map(base::resolve);
    Optional<Path> ca = r.string("ca_file").map(base::resolve);
    boolean insecureHttp = r.bool("insecure_http").orElse(false);
    Optional<Path> bmcsFile = r.string("bmcs_file").map(base::resolve);
    boolean listed = r.has("bmcs");
    List<Bmc> bmcs = r.list("bmcs").map(items -> entries(items, base, ca.isPresent(), insecureHttp, "cloud.redfish.bmcs",
        problems)).orElse(List.of());
    r.finish();
    if (ca.isEmpty() && !insecureHttp) {
      problems.add(r.node(), "cloud.redfish needs ca_file, the CA bundle that signed the BMCs' certificates: without it"
          + " any host with a publicly trusted certificate would be sent the BMC credentials (plain-http BMCs need"
          + " insecure_http: true)");
    }
    if (!listed && bmcsFile.isEmpty()) {
      problems.add(r.node(), "cloud.redfish needs bmcs or bmcs_file (node or provider_id -> url): a node's BMC is no"
          + " longer read from its gpu-remediator.io/bmc-url annotation, which the node's own kubelet can write");
    }
    return credentials.map(file -> new Redfish(file, ca, insecureHttp, bmcs, bmcsFile));
  }

  /**
   * The entries of a {@code bmcs} list, each checked; {@code where} names the list in messages.
   *
   * @param trusted whether a CA is configured (https BMCs need one)
   */
  static List<Bmc> entries(List<Node> items, Path base, boolean trusted, boolean insecureHttp, String where,
      Problems problems) {
    if (items.size() > MAX_BMCS) {
      problems.add(items.get(MAX_BMCS), where + " lists more than " + MAX_BMCS + " BMCs");
      return List.of();
    }
    List<Bmc> out = new ArrayList<>();
    Set<String> keys = new HashSet<>();
    for (Node item : items) {
      MapReader.of(item, where + " entry", problems).flatMap(e -> entry(e, base, trusted, insecureHttp, where, problems))
          .ifPresent(bmc -> {
            String key = bmc.node().map(n -> "node " + n).orElse("provider_id " + bmc.providerId().orElse(""));
            if (keys.add(key)) {
              out.add(bmc);
            } else {
              problems.add(item, where + " names " + key + " twice");
            }
          });
    }
    return List.copyOf(out);
  }

  private static Optional<Bmc> entry(MapReader e, Path base, boolean trusted, boolean insecureHttp, String where,
      Problems problems) {
    Optional<String> node = e.string("node").filter(n -> {
      if (!NODE.matcher(n).matches()) {
        problems.add(e.at("node"), "\"node\" in " + where + " must be a node's name (RFC 1123), not \"" + shown(n) + "\"");
        return false;
      }
      return true;
    });
    Optional<String> providerId = e.string("provider_id").filter(p -> !p.isBlank());
    Optional<URI> url = e.requiredString("url").flatMap(u -> url(e, u, trusted, insecureHttp, where, problems));
    Optional<Path> credentials = e.string("credentials_file").map(base::resolve);
    e.finish();
    if (e.has("node") == e.has("provider_id")) {
      problems.add(e.node(), "a " + where + " entry names its node by exactly one of node or provider_id");
      return Optional.empty();
    }
    if ((node.isEmpty() && providerId.isEmpty()) || url.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Bmc(node, providerId, new BmcAddress(url.get(), credentials,
        problems.file() + ":" + Problems.lineOf(e.node()))));
  }

  private static Optional<URI> url(MapReader e, String text, boolean trusted, boolean insecureHttp, String where,
      Problems problems) {
    try {
      URI u = new URI(text.strip());
      boolean https = "https".equals(u.getScheme());
      if ((https || "http".equals(u.getScheme())) && u.getHost() != null && u.getUserInfo() == null
          && u.getQuery() == null && u.getFragment() == null && SYSTEM_PATH.matcher(u.getRawPath()).matches()) {
        if (!https && !insecureHttp) {
          problems.add(e.at("url"), "\"url\" in " + where + " is plain http, which sends the BMC credentials in clear:"
              + " https, or insecure_http: true in cloud.redfish");
          return Optional.empty();
        }
        if (https && !trusted) {
          problems.add(e.at("url"), "\"url\" in " + where + " is https, which needs cloud.redfish.ca_file to verify the"
              + " BMC's certificate");
          return Optional.empty();
        }
        return Optional.of(u);
      }
    } catch (URISyntaxException ex) {
      // reported below
    }
    problems.add(e.at("url"), "\"url\" in " + where + " must be https://<bmc>[/redfish/v1/Systems/<id>] without"
        + " credentials, not \"" + shown(text) + "\"");
    return Optional.empty();
  }

  private static String shown(String text) {
    return text.length() > 128 ? text.substring(0, 125) + "..." : text;
  }
}
