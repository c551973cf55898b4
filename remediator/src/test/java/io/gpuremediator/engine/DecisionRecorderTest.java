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
  void escapesInvisibleAndLineBreakingCharacters() {
    assertThat(DecisionRecorder.quote("a\u0000b\u2028c\u0085")).isEqualTo("\"a\\u0000b\\u2028c\\u0085\"");
  }
}
