package io.gpuremediator.config;

import io.gpuremediator.config.RemediatorConfig.Alertmanager;
import io.gpuremediator.config.RemediatorConfig.Aws;
import io.gpuremediator.config.RemediatorConfig.Receiver;
import io.gpuremediator.config.RemediatorConfig.ReceiverType;
import io.gpuremediator.config.RemediatorConfig.Redfish;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import io.gpuremediator.yaml.Problems;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.nodes.Node;

/** Decodes the config of what the service calls outside Kubernetes: {@code alertmanager}, {@code notify}, {@code cloud}. */
final class OutboundConfig {
  private static final Pattern RECEIVER = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern REGION = Pattern.compile("[a-z]{2}(-[a-z]+)+-\\d");

  private OutboundConfig() {}

  static Optional<Alertmanager> alertmanager(MapReader m, Path base, Problems problems) {
    return m.map("alertmanager", "alertmanager").flatMap(a -> {
      Optional<URI> url = a.requiredString("url").flatMap(u -> httpUrl(a, "url", u, "alertmanager", problems));
      Optional<Path> token = a.string("bearer_token_file").map(base::resolve);
      a.finish();
      return url.map(u -> new Alertmanager(u, token));
    });
  }

  static List<Receiver> receivers(MapReader m, Path base, Problems problems) {
    List<Receiver> out = new ArrayList<>();
    m.map("notify", "notify").ifPresent(n -> {
      n.list("receivers").ifPresent(items -> {
        Set<String> names = new HashSet<>();
        for (Node item : items) {
          MapReader.of(item, "notify receiver", problems).ifPresent(r -> receiver(r, base, problems).ifPresent(rec -> {
            if (!names.add(rec.name())) {
              problems.add(r.at("name"), "notify receiver \"" + rec.name() + "\" is defined twice");
            } else {
              out.add(rec);
            }
          }));
        }
      });
      n.finish();
    });
    return out;
  }

  private static Optional<Receiver> receiver(MapReader r, Path base, Problems problems) {
    Optional<String> name = r.requiredString("name").filter(n -> {
      if (!RECEIVER.matcher(n).matches()) {
        problems.add(r.at("name"), "notify receiver name \"" + n + "\" must be lower-case letters, digits and -");
        return false;
      }
      return true;
    });
    Optional<ReceiverType> type = r.requiredString("type").flatMap(t -> {
      for (ReceiverType rt : ReceiverType.values()) {
        if (rt.name().toLowerCase(Locale.ROOT).equals(t)) {
          return Optional.of(rt);
        }
      }
      problems.add(r.at("type"), "notify receiver \"type\" must be slack or webhook, not \"" + t + "\"");
      return Optional.empty();
    });
    Optional<Path> urlFile = r.requiredString("url_file").map(base::resolve);
    r.finish();
    if (name.isEmpty() || type.isEmpty() || urlFile.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new Receiver(name.get(), type.get(), urlFile.get()));
  }

  /**
   * What {@code cloud} configures: an AWS region, Redfish credentials, and the replace providers that work through the
   * Kubernetes API whose RBAC is deployed ({@code karpenter: {}}, {@code cluster_api: {}}); any, all or none.
   */
  record Cloud(Optional<Aws> aws, Optional<Redfish> redfish, Set<String> replaceProviders) {}

  /** {@code every} 10s to 1h (DescribeInstanceStatus is paced by it), {@code lead} 1h to 7d (a drain fits before the event). */
  private static RemediatorConfig.ScheduledEvents scheduledEvents(MapReader ev, Problems problems) {
    RemediatorConfig.ScheduledEvents d = RemediatorConfig.ScheduledEvents.DEFAULT;
    Duration every = ev.parsed("every", Durations::parse).orElse(d.every());
    if (every.compareTo(Duration.ofSeconds(10)) < 0 || every.compareTo(Duration.ofHours(1)) > 0) {
      problems.add(ev.at("every"), "\"every\" in cloud.aws.scheduled_events must be between 10s and 1h");
      every = d.every();
    }
    Duration lead = ev.parsed("lead", Durations::parse).orElse(d.lead());
    if (lead.compareTo(Duration.ofHours(1)) < 0 || lead.compareTo(Duration.ofDays(7)) > 0) {
      problems.add(ev.at("lead"), "\"lead\" in cloud.aws.scheduled_events must be between 1h and 7d (the drain must end"
          + " before the event may start)");
      lead = d.lead();
    }
    ev.finish();
    return new RemediatorConfig.ScheduledEvents(every, lead);
  }

  static Cloud cloud(MapReader m, Path base, Problems problems) {
    return m.map("cloud", "cloud").map(c -> {
      Optional<Aws> aws = c.map("aws", "cloud.aws").flatMap(a -> {
        Optional<String> region = a.requiredString("region").filter(r -> {
          if (!REGION.matcher(r).matches()) {
            problems.add(a.at("region"), "\"region\" in cloud.aws must be an AWS region such as us-west-2, not \"" + r + "\"");
            return false;
          }
          return true;
        });
        Optional<URI> endpoint = a.string("endpoint").flatMap(e -> httpUrl(a, "endpoint", e, "cloud.aws", problems));
        Optional<RemediatorConfig.ScheduledEvents> events = a.map("scheduled_events", "cloud.aws.scheduled_events")
            .map(ev -> scheduledEvents(ev, problems));
        a.finish();
        return region.map(r -> new Aws(r, endpoint, events));
      });
      Optional<Redfish> redfish = c.map("redfish", "cloud.redfish").flatMap(r -> RedfishConfig.decode(r, base, problems));
      Set<String> providers = new TreeSet<>();
      // A provider through the Kubernetes API has nothing to configure: its key says its overlay (and RBAC) is deployed.
      for (ReplaceProvider p : ReplaceProvider.throughKubernetes()) {
        c.map(p.configKey(), "cloud." + p.configKey()).ifPresent(k -> {
          k.finish();
          providers.add(p.name());
        });
      }
      c.finish();
      return new Cloud(aws, redfish, providers);
    }).orElse(new Cloud(Optional.empty(), Optional.empty(), Set.of()));
  }

  private static Optional<URI> httpUrl(MapReader r, String key, String text, String where, Problems problems) {
    try {
      URI u = new URI(text);
      if (("http".equals(u.getScheme()) || "https".equals(u.getScheme())) && u.getHost() != null && u.getUserInfo() == null) {
        return Optional.of(u);
      }
    } catch (URISyntaxException e) {
      // reported below
    }
    problems.add(r.at(key), "\"" + key + "\" in " + where + " must be an http(s) URL without credentials, not \"" + text + "\"");
    return Optional.empty();
  }
}
