package io.gpuremediator.pipeline;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.Yaml;

/**
 * The demo's Alertmanager config, made from {@code alerts/alertmanager.yml} as it is: the same routes,
 * matchers, grouping and inhibitions. Only the remediator receiver's URL and token file (in-cluster
 * ones; its TLS settings too when the URL is plain http, as the demo's is) and the group timers change; the shorter timers make fault-to-quarantine measure the pipeline
 * rather than Alertmanager's batching windows.
 */
public final class RouteConfig {
  /** The receiver the remediation route sends to. */
  public static final String RECEIVER = "gpu-remediator";

  private RouteConfig() {}

  /** Renders the config; fails when there is no {@value #RECEIVER} webhook receiver to point at the service. */
  @SuppressWarnings("unchecked")
  public static String render(Path source, String webhookUrl, Path tokenFile, Duration groupWait, Duration groupInterval)
      throws IOException {
    Map<String, Object> config = new Yaml().load(Files.readString(source));
    List<Map<String, Object>> webhooks = ((List<Map<String, Object>>) config.getOrDefault("receivers", List.of())).stream()
        .filter(r -> RECEIVER.equals(r.get("name")))
        .flatMap(r -> ((List<Map<String, Object>>) r.getOrDefault("webhook_configs", List.of())).stream())
        .toList();
    if (webhooks.isEmpty()) {
      throw new IllegalArgumentException(source + ": no receiver " + RECEIVER + " with a webhook_configs entry");
    }
    for (Map<String, Object> webhook : webhooks) {
      webhook.put("url", webhookUrl);
      Map<String, Object> http = (Map<String, Object>) webhook.getOrDefault("http_config", Map.of());
      if (webhookUrl.startsWith("http:") && http.containsKey("tls_config")) {
        http.remove("tls_config"); // the demo's service listens on 127.0.0.1 without TLS
      }
      Map<String, Object> authorization = (Map<String, Object>) http.getOrDefault("authorization", Map.of());
      if (authorization.containsKey("credentials_file")) {
        authorization.put("credentials_file", tokenFile.toAbsolutePath().toString());
      }
    }
    shortenTimers((Map<String, Object>) config.get("route"), groupWait, groupInterval, true);
    DumperOptions options = new DumperOptions();
    options.setDefaultFlowStyle(DumperOptions.FlowStyle.BLOCK);
    return "# Generated for the demo from " + source.getFileName() + "; see io.gpuremediator.pipeline.RouteConfig.\n"
        + new Yaml(options).dump(config);
  }

  @SuppressWarnings("unchecked")
  private static void shortenTimers(Map<String, Object> route, Duration groupWait, Duration groupInterval, boolean root) {
    if (route == null) {
      return;
    }
    if (root || route.containsKey("group_wait")) {
      route.put("group_wait", groupWait.toSeconds() + "s");
    }
    if (root || route.containsKey("group_interval")) {
      route.put("group_interval", groupInterval.toSeconds() + "s");
    }
    for (Object child : (List<Object>) route.getOrDefault("routes", List.of())) {
      shortenTimers((Map<String, Object>) child, groupWait, groupInterval, false);
    }
  }
}
