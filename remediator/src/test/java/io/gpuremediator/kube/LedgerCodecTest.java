package io.gpuremediator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuremediator.state.Episode;
import io.gpuremediator.state.EvidenceJob;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Held;
import io.gpuremediator.state.HeldSilence;
import io.gpuremediator.state.NodeLedger;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Stage;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The ledger annotation keeps an episode's place in the loop across restarts, and old ledgers still read. */
class LedgerCodecTest {
  private static final Instant T = Instant.parse("2026-11-22T10:01:00Z");

  @Test
  void anEpisodeMidDrainComesBackAsItWas() {
    Progress p = new Progress(Stage.DRAINING, T.plusSeconds(5), true, false, 4,
        Optional.of(new Progress.Task("drain", 4, T.plusSeconds(5), 2, "", Optional.of(T.plusSeconds(10)))),
        "1 pods left to move; waiting on PDB ml/llm");
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-hardware-xid", T.minusSeconds(60), T, p,
        Map.of("xid", "79", "node", "n1"), Map.of("summary", "XID 79"));
    NodeLedger ledger = NodeLedger.of(Map.of(), Map.of("fp1", e), List.of());
    assertThat(LedgerCodec.parse(LedgerCodec.encode(ledger))).isEqualTo(ledger);
  }

  @Test
  void anEscalatedEpisodeKeepsThePlaybookItsAlertMatched() {
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-reset", T.minusSeconds(60), T, Progress.settled(T),
        Map.of(), Map.of()).escalatedTo("gpu-reboot", Progress.settled(T));
    NodeLedger ledger = NodeLedger.of(Map.of(), Map.of("fp1", e), List.of())
        .released("fp1", T.plusSeconds(600));
    NodeLedger back = LedgerCodec.parse(LedgerCodec.encode(ledger));
    assertThat(back).isEqualTo(ledger);
    assertThat(back.history().get(0).playbook()).isEqualTo("gpu-reboot");
    assertThat(back.history().get(0).matched()).isEqualTo("gpu-reset");
  }

  @Test
  void everyPartOfALedgerComesBackAsItWasWritten() {
    Progress p = new Progress(Stage.REPAIRING, T.plusSeconds(5), false, true, 2,
        Optional.of(new Progress.Task("gpu_reset", 2, T.plusSeconds(5), 3, "job/gpu-reset-1", Optional.empty())), "");
    FencedGpu gpu = new FencedGpu("gpu.nvidia.com", "n1", "gpu-3", "GPU-3", "rule-3");
    Episode e = new Episode("fp1", "GpuXidHardwareError", "gpu-reset", T.minusSeconds(60), T, p,
        Map.of("xid", "79", "quote", "a \"b\" \\ é"), Map.of(), "gpu-hardware-xid")
        .withSilence("gpu-reset/actions/0", new HeldSilence("abc-123", T, T.plusSeconds(3600)))
        .withHeld("gpu-reset/actions/1", new EvidenceJob("gpu-remediator/evidence-1", "s3://b/n1/evidence-1").held())
        .withHeld(Episode.HANDED_OVER + "gpu-reset/actions/2", gpu.held()).withNotified("gpu-reset/actions/3");
    Episode earlier = new Episode("fp0", "GpuXidHardwareError", "gpu-reboot", T.minusSeconds(7200), T.minusSeconds(7100))
        .withHeld("gpu-reboot/actions/1", gpu.held()).withSilence("gpu-reboot/actions/0",
            new HeldSilence("silence-0", T, T));
    NodeLedger ledger = NodeLedger.of(Map.of(), Map.of("fp0", earlier, "fp1", e), List.of(),
            List.of(new Held(HeldSilence.KIND, "silence-1", ""), new Held(HeldSilence.KIND, "silence-2", "")))
        .hold("taint:gpu-remediator.io/unhealthy:NoSchedule", "fp1", false).hold("cordon", "fp1", true)
        .released("fp0", T.minusSeconds(3600));
    assertThat(ledger.history()).hasSize(1);
    assertThat(ledger.claims()).hasSize(2);
    assertThat(ledger.unheld()).extracting(Held::name).as("the fence is still held by fp1; its silence is not")
        .containsExactly("silence-0", "silence-1", "silence-2");
    NodeLedger back = LedgerCodec.parse(LedgerCodec.encode(ledger));
    assertThat(back).isEqualTo(ledger);
    assertThat(LedgerCodec.encode(back)).as("written again the same way").isEqualTo(LedgerCodec.encode(ledger));
  }

  @Test
  void aTextReadTwiceReadsTheSameAsAFreshParse() {
    String old = "{\"v\":1,\"claims\":{\"cordon\":{\"holders\":[\"fp1\"]}},\"episodes\":{},\"history\":[]}";
    assertThat(LedgerCodec.decode(old)).isEqualTo(LedgerCodec.parse(old));
    assertThat(LedgerCodec.decode(old)).isEqualTo(LedgerCodec.parse(old));
  }

  @Test
  void aLedgerWrittenBeforeTheLoopReadsAsSettled() {
    String old = "{\"v\":1,\"claims\":{},\"episodes\":{\"fp1\":{\"alertname\":\"A\",\"playbook\":\"p\","
        + "\"starts_at\":\"2026-11-22T10:00:00Z\",\"since\":\"2026-11-22T10:01:00Z\"}},\"history\":[]}";
    Episode e = LedgerCodec.decode(old).episodes().get("fp1");
    assertThat(e.progress()).isEqualTo(Progress.settled(T));
    assertThat(LedgerCodec.encode(LedgerCodec.decode(old))).as("and is written back the same way, as version 2")
        .isEqualTo(old.replace("{\"v\":1,", "{\"v\":2,"));
  }

  @Test
  void anUnknownStageIsUnreadableNotGuessed() {
    String bad = "{\"v\":1,\"claims\":{},\"episodes\":{\"fp1\":{\"alertname\":\"A\",\"playbook\":\"p\","
        + "\"starts_at\":\"2026-11-22T10:00:00Z\",\"since\":\"2026-11-22T10:01:00Z\","
        + "\"progress\":{\"stage\":\"rebooting\",\"stage_since\":\"2026-11-22T10:01:00Z\"}}},\"history\":[]}";
    assertThatThrownBy(() -> LedgerCodec.decode(bad)).hasMessage("episode fp1 has an unknown stage");
  }

  @Test
  void aVersionOneLedgerReadsItsOutboundEntriesAndExpiringSilencesAsHoldings() {
    String v1 = "{\"v\":1,\"claims\":{},\"episodes\":{\"fp1\":{\"alertname\":\"A\",\"playbook\":\"p\","
        + "\"starts_at\":\"2026-11-22T10:00:00Z\",\"since\":\"2026-11-22T10:01:00Z\",\"outbound\":{"
        + "\"evidence/p/actions/1\":\"gpu-remediator/ev-1 -> s3://b/n1/ev-1\","
        + "\"fenced/inherited/p/actions/2\":\"gpu.nvidia.com n1 gpu-1 GPU-1 rule-1\","
        + "\"fenced/p/actions/2\":\"gpu.nvidia.com n1 gpu-2 GPU-2 rule-2\","
        + "\"notify/p/actions/3\":\"sent\","
        + "\"silence/p/actions/0\":\"s-1 2026-11-22T10:01:00Z 2026-11-22T11:01:00Z\"}}},"
        + "\"expiring_silences\":[\"s-0\"],\"history\":[]}";
    NodeLedger ledger = LedgerCodec.parse(v1);
    Episode e = ledger.episodes().get("fp1");
    assertThat(e.silence("p/actions/0")).contains(new HeldSilence("s-1", T, T.plusSeconds(3600)));
    assertThat(e.evidence()).containsExactly("gpu-remediator/ev-1 -> s3://b/n1/ev-1");
    assertThat(e.fenced()).extracting(FencedGpu::rule).containsExactly("rule-1", "rule-2");
    assertThat(e.holds()).containsKey(Episode.HANDED_OVER + "p/actions/2");
    assertThat(e.notified()).containsExactly("p/actions/3");
    assertThat(ledger.unheld()).containsExactly(new Held(HeldSilence.KIND, "s-0", ""));
    assertThat(ledger.holdings()).containsOnlyKeys("evidence_job/gpu-remediator/ev-1", "gpu_fence/rule-1",
        "gpu_fence/rule-2", "silence/s-0", "silence/s-1");
    assertThat(ledger.holdings().get("gpu_fence/rule-2").holders()).containsExactly(Map.entry("fp1", "p/actions/2"));
    assertThat(LedgerCodec.parse(LedgerCodec.encode(ledger))).as("written once as version 2").isEqualTo(ledger);
  }

  @Test
  void aHoldingWhoseHolderIsNoActiveEpisodeIsToBeGivenBack() {
    String v2 = "{\"v\":2,\"claims\":{},\"episodes\":{},\"holdings\":{\"gpu_fence/rule-1\":{\"value\":"
        + "\"gpu.nvidia.com n1 gpu-1 GPU-1\",\"holders\":{\"fp9\":\"p/actions/1\"}}},\"history\":[]}";
    assertThat(LedgerCodec.parse(v2).unheld()).extracting(Held::key).containsExactly("gpu_fence/rule-1");
  }

  @Test
  void theAlertsContextIsCapped() {
    String huge = "x".repeat(5000);
    Episode e = new Episode("fp1", "A", "p", T, T, Progress.settled(T), Map.of("big", huge), Map.of());
    assertThat(e.labels().get("big")).hasSize(Episode.CONTEXT_VALUE_CHARS);
  }
}
