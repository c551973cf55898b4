package io.gpuremediator.decision;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class DecisionTest {
  @Test
  void textFromTheAlertIsCappedAndSaysHowMuchWasCut() {
    String huge = "x".repeat(1 << 20);
    Decision d = new Decision(Instant.EPOCH, huge, Instant.EPOCH, huge, "firing", huge, "", Reason.NO_PLAYBOOK,
        "no playbook matches " + huge, List.of());
    assertThat(d.alertname()).hasSize(Decision.NAME_CHARS + "...(1048064 more characters)".length())
        .endsWith("...(1048064 more characters)");
    assertThat(d.fingerprint()).hasSameSizeAs(d.alertname());
    assertThat(d.node()).hasSameSizeAs(d.alertname());
    assertThat(d.detail()).startsWith("no playbook matches xxx").hasSizeLessThan(Decision.DETAIL_CHARS + 40);
  }

  @Test
  void aRealNodeNameIsKeptWhole() {
    String longest = "n".repeat(253);
    Decision d = new Decision(Instant.EPOCH, "fp", Instant.EPOCH, "GpuXidHardwareError", "firing", longest, "p",
        Reason.NO_PLAYBOOK, "", List.of());
    assertThat(d.node()).isEqualTo(longest);
  }
}
