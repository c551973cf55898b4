package io.gpuremediator.backtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.testing.LocalAlertmanager;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replayed alert's fingerprint is the one the real Alertmanager gives the same labels. */
class FingerprintTest {
  @TempDir Path dir;

  @Test
  void fingerprintsAreAlertmanagersOwn() throws Exception {
    List<Map<String, String>> labelSets = List.of(
        Map.of("alertname", "GpuXidHardwareError", "node", "gpu-node-1", "gpu", "3", "xid", "79", "severity", "critical",
            "remediate", "true", "recommended_action", "reboot"),
        Map.of("alertname", "GpuEccUncorrectable", "node", "gpu-node-2", "gpu", "0"),
        Map.of("alertname", "NodeMemoryUncorrectable", "node", "n\u00e9-\u00fcnicode", "controller", "0"));
    try (LocalAlertmanager am = new LocalAlertmanager(dir)) {
      JsonArray post = new JsonArray();
      labelSets.forEach(l -> post.add(new JsonObject().put("labels", new JsonObject(new TreeMap<String, Object>(l)))));
      assertThat(am.post("/api/v2/alerts", post.encode())).isEqualTo(200);
      await().atMost(Duration.ofSeconds(20)).until(() -> new JsonArray(am.get("/api/v2/alerts")).size() == labelSets.size());
      for (Object o : new JsonArray(am.get("/api/v2/alerts"))) {
        JsonObject alert = (JsonObject) o;
        Map<String, String> labels = new TreeMap<>();
        alert.getJsonObject("labels").forEach(e -> labels.put(e.getKey(), (String) e.getValue()));
        assertThat(Fingerprint.of(labels)).as("labels %s", labels).isEqualTo(alert.getString("fingerprint"));
      }
    }
  }
}
