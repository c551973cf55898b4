package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.episode.WebhookResult;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class WebhookHandlerTest {
  @Test
  void theSummaryIsValidJsonWhateverTheAlertSays() {
    String hostile = "Gpu\"Xid\\\n\u2028</script>\u0000";
    Decision d = new Decision(Instant.EPOCH, "abc", Instant.EPOCH, hostile, "firing", "gpu-node-1", "p", Reason.NO_PLAYBOOK,
        "", List.of());
    Decision e = new Decision(Instant.EPOCH, "def", Instant.EPOCH, "B", "resolved", "", "", Reason.KUBE_UNAVAILABLE, "", List.of());
    JsonObject summary = new JsonObject(WebhookHandler.summary(new WebhookResult(List.of(d, e))));
    assertThat(summary.getInteger("alerts")).isEqualTo(2);
    assertThat(summary.getJsonObject("outcomes").getMap()).containsEntry("ignored", 1).containsEntry("failed", 1);
    assertThat(summary.getBoolean("retry")).isTrue();
    assertThat(summary.getJsonArray("decisions").getJsonObject(0).getString("alertname")).isEqualTo(hostile);
    assertThat(summary.getJsonArray("decisions").getJsonObject(1).getString("reason")).isEqualTo("kube_unavailable");
  }

  @Test
  void anEmptyWebhookHasAnEmptySummary() {
    assertThat(new JsonObject(WebhookHandler.summary(new WebhookResult(List.of()))).encode())
        .isEqualTo("{\"alerts\":0,\"outcomes\":{},\"retry\":false,\"decisions\":[]}");
  }
}
