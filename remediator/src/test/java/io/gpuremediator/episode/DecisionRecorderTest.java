package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.DecisionLog;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.metrics.RemediatorMetrics;
import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class DecisionRecorderTest {
  @Test
  void logLineCarriesEveryKeyAndEscapesAlertValues() {
    Decision d = new Decision(Instant.EPOCH, "abc", Instant.parse("2026-11-22T10:00:00Z"), "Gpu\"Xid\nfake=1", "firing",
        "", "", Reason.NODE_UNRESOLVED, "label node: \"x\"", List.of());
    assertThat(DecisionRecorder.line(d)).isEqualTo("decision outcome=ignored reason=node_unresolved fingerprint=\"abc\""
        + " alertname=\"Gpu\\\"Xid\\nfake=1\" status=firing node=\"\" playbook=\"\" starts_at=2026-11-22T10:00:00Z"
        + " detail=\"label node: \\\"x\\\"\"");
  }

  @Test
  void anAppliedQuarantineIsTimedFromItsAlertsStartAndNothingElseIs() {
    CollectorRegistry registry = new CollectorRegistry();
    DecisionRecorder recorder = new DecisionRecorder(new DecisionLog(10),
        new RemediatorMetrics(registry));
    Instant start = Instant.parse("2026-11-22T10:00:00Z");
    recorder.decided(new Decision(start.plusSeconds(95), "a", start, "GpuXidHardwareError", "firing", "n1", "xid",
        Reason.ACTIONS_APPLIED, "", List.of()));
    recorder.decided(new Decision(start.plusSeconds(900), "b", start, "GpuXidHardwareError", "firing", "n2", "xid",
        Reason.BREAKER_OPEN, "", List.of()));
    recorder.decided(new Decision(start.plusSeconds(600), "a", start, "GpuXidHardwareError", "resolved", "n1", "xid",
        Reason.RESOLVED_ACTIONS_APPLIED, "", List.of()));
    assertThat(registry.getSampleValue("remediator_alert_to_action_seconds_count")).isEqualTo(1.0);
    assertThat(registry.getSampleValue("remediator_alert_to_action_seconds_sum")).isEqualTo(95.0);
  }

  /** Runs {@code body} with the decision logger at DEBUG and its events kept in a list. */
  private static void withDecisionLog(
      Consumer<List<ch.qos.logback.classic.spi.ILoggingEvent>> body) {
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) LoggerFactory
        .getLogger("io.gpuremediator.decision");
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
        new ch.qos.logback.core.read.ListAppender<>();
    seen.start();
    logger.addAppender(seen);
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      body.accept(seen.list);
    } finally {
      logger.detachAppender(seen);
      logger.setLevel(before);
    }
  }

  @Test
  void whatChangedOrWasRefusedIsLoggedAtInfoWhatWasIgnoredOrOnlyADryRunAtDebug() {
    withDecisionLog(seen -> {
      DecisionRecorder recorder = new DecisionRecorder(new DecisionLog(10),
          new RemediatorMetrics(new CollectorRegistry()));
      for (Reason r : List.of(Reason.ACTIONS_APPLIED, Reason.BREAKER_OPEN, Reason.KUBE_UNAVAILABLE,
          Reason.DRY_RUN_GLOBAL, Reason.NO_PLAYBOOK)) {
        recorder.decided(new Decision(Instant.EPOCH, "a", Instant.EPOCH, "A", "firing", "n1", "p", r, "", List.of()));
      }
      assertThat(seen).extracting(e -> e.getLevel() + " " + e.getFormattedMessage().split(" ")[2]).containsExactly(
          "INFO reason=actions_applied", "INFO reason=breaker_open", "INFO reason=kube_unavailable",
          "DEBUG reason=dry_run_global", "DEBUG reason=no_playbook");
    });
  }

  @Test
  void aWebhooksStormRefusalsAreOneLineNamingEveryNodeAndEachStillCountedAndListed() {
    withDecisionLog(seen -> {
      CollectorRegistry registry = new CollectorRegistry();
      DecisionLog decisions = new DecisionLog(500);
      DecisionRecorder recorder = new DecisionRecorder(decisions,
          new RemediatorMetrics(registry));
      List<Decision> webhook = new ArrayList<>();
      for (int i = 0; i < 200; i++) {
        webhook.add(new Decision(Instant.EPOCH, "f" + i, Instant.EPOCH, "GpuXidHardwareError", "firing",
            "gpu-node-" + i, "gpu-hardware-xid", Reason.BREAKER_OPEN, "storm breaker open since ...", List.of()));
      }
      webhook.add(new Decision(Instant.EPOCH, "x", Instant.EPOCH, "GpuXidHardwareError", "firing", "gpu-node-7",
          "gpu-hardware-xid", Reason.COOLDOWN, "released at ...", List.of()));
      recorder.decidedAll(webhook);

      assertThat(seen).extracting(ch.qos.logback.classic.spi.ILoggingEvent::getFormattedMessage)
          .hasSize(2).anySatisfy(m -> assertThat(m).startsWith("decision outcome=suppressed reason=cooldown"))
          .anySatisfy(m -> assertThat(m).startsWith("decisions outcome=suppressed reason=breaker_open count=200"
              + " alertnames=\"GpuXidHardwareError\" nodes=\"gpu-node-0,gpu-node-1,").contains(",gpu-node-199\"")
              .endsWith(" detail=\"storm breaker open since ...\""));
      assertThat(registry.getSampleValue("remediator_decisions_total", new String[] {"outcome", "reason"},
          new String[] {"suppressed", "breaker_open"})).isEqualTo(200.0);
      assertThat(decisions.recent(500)).hasSize(201);
    });
  }

  @Test
  void escapesInvisibleAndLineBreakingCharacters() {
    assertThat(DecisionRecorder.quote("a\u0000b\u2028c\u0085")).isEqualTo("\"a\\u0000b\\u2028c\\u0085\"");
  }
}
