package io.gpuremediator.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** What a node's ledger counts toward {@code escalate}: every episode its alerts started, whatever ran it. */
class NodeLedgerTest {
  private static final Instant T = Instant.parse("2026-11-26T10:00:00Z");

  private static Episode episode(String fingerprint, Instant since) {
    return new Episode(fingerprint, "GpuXidHardwareError", "gpu-reset", since, since, Progress.settled(since),
        Map.of(), Map.of());
  }

  @Test
  void anEpisodeEscalatedByAFailedRepairStillCountsForThePlaybookItsAlertMatched() {
    Episode escalated = episode("fp1", T).escalatedTo("gpu-reboot", Progress.settled(T));
    NodeLedger ledger = NodeLedger.of(Map.of(), Map.of("fp1", escalated, "fp2", episode("fp2", T.plusSeconds(60))),
        List.of()).released("fp1", T.plusSeconds(300));

    assertThat(ledger.episodesSince(Set.of("gpu-reset"), T.minus(Duration.ofDays(7)))).isEqualTo(2);
    assertThat(ledger.episodesSince(Set.of("gpu-reboot"), T.minus(Duration.ofDays(7))))
        .as("the playbook an escalation ran is not what the alert matched").isZero();
  }

  @Test
  void episodesBeforeTheWindowDoNotCount() {
    NodeLedger ledger = NodeLedger.of(Map.of(), Map.of("fp1", episode("fp1", T)), List.of());
    assertThat(ledger.episodesSince(Set.of("gpu-reset"), T.plusSeconds(1))).isZero();
  }
}
