package io.gpuremediator.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.decision.Reason;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

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
    io.prometheus.client.CollectorRegistry registry = new io.prometheus.client.CollectorRegistry();
    DecisionRecorder recorder = new DecisionRecorder(new io.gpuremediator.decision.DecisionLog(10),
        new io.gpuremediator.metrics.RemediatorMetrics(registry));
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

  @Test
  void whatChangedOrWasRefusedIsLoggedAtInfoWhatWasIgnoredOrOnlyADryRunAtDebug() {
    ch.qos.logback.classic.Logger logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory
        .getLogger("io.gpuremediator.decision");
    ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent> seen =
        new ch.qos.logback.core.read.ListAppender<>();
    seen.start();
    logger.addAppender(seen);
    ch.qos.logback.classic.Level before = logger.getLevel();
    logger.setLevel(ch.qos.logback.classic.Level.DEBUG);
    try {
      DecisionRecorder recorder = new DecisionRecorder(new io.gpuremediator.decision.DecisionLog(10),
          new io.gpuremediator.metrics.RemediatorMetrics(new io.prometheus.client.CollectorRegistry()));
      for (Reason r : List.of(Reason.ACTIONS_APPLIED, Reason.BREAKER_OPEN, Reason.KUBE_UNAVAILABLE, Reason.DRY_RUN_GLOBAL,
          Reason.NO_PLAYBOOK)) {
        recorder.decided(new Decision(Instant.EPOCH, "a", Instant.EPOCH, "A", "firing", "n1", "p", r, "", List.of()));
      }
      assertThat(seen.list).extracting(e -> e.getLevel() + " " + e.getFormattedMessage().split(" ")[2]).containsExactly(
          "INFO reason=actions_applied", "INFO reason=breaker_open", "INFO reason=kube_unavailable",
          "DEBUG reason=dry_run_global", "DEBUG reason=no_playbook");
    } finally {
      logger.detachAppender(seen);
      logger.setLevel(before);
    }
  }

  @Test
  void escapesInvisibleAndLineBreakingCharacters() {
    assertThat(DecisionRecorder.quote("a\u0000b\u2028c\u0085")).isEqualTo("\"a\\u0000b\\u2028c\\u0085\"");
  }
}
