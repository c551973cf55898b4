package io.gpuremediator.action;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.decision.Reason;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The default {@code gpu_reset} command, run as its Job runs it ({@code sh -c SCRIPT gpu-reset GPUS}) against a fake
 * nvidia-smi that answers from recorded real outputs (tests/real/nvidia-smi): persistence mode, which alone refuses a
 * reset, is turned off for it and back on after; a GPU another client holds is still refused, and the step says so in
 * the tool's words.
 */
class GpuResetScriptTest {
  private static final Path FAKE = Path.of("../simapi/node-tools/bin");
  private static final Path RECORDED = Path.of("../tests/real");
  private static final String UUID = "GPU-8d3c1f2e-5a5f-aa66-7660-000000000003";
  @TempDir Path state;

  private record Run(int exit, String output, List<String> calls) {}

  private Run reset(String persistence, String holder) throws IOException, InterruptedException {
    Files.writeString(state.resolve("persistence"), persistence + "\n");
    Files.writeString(state.resolve("holder"), holder + "\n");
    Files.writeString(state.resolve("uuid"), UUID + "\n");
    ProcessBuilder pb = new ProcessBuilder("sh", "-c", GpuResetAction.DEFAULT_SCRIPT, "gpu-reset", UUID)
        .redirectErrorStream(true);
    pb.environment().put("PATH", FAKE.toAbsolutePath() + ":" + System.getenv("PATH"));
    pb.environment().put("FAKE_GPU_STATE", state.toString());
    pb.environment().put("FAKE_RECORDED", RECORDED.toAbsolutePath().toString());
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    return new Run(p.exitValue(), out, Files.readAllLines(state.resolve("calls")));
  }

  @Test
  void persistenceModeIsTurnedOffForTheResetAndBackOnAfter() throws Exception {
    Run r = reset("Enabled", "none");
    assertThat(r.exit()).as(r.output()).isZero();
    assertThat(r.output()).contains("was successfully reset.");
    assertThat(r.calls()).containsExactly("-i " + UUID + " --query-gpu=uuid,persistence_mode --format=csv,noheader",
        "-i " + UUID + " -pm 0", "-r -i " + UUID, "-i " + UUID + " -pm 1");
    assertThat(Files.readString(state.resolve("persistence"))).isEqualTo("Enabled\n");
  }

  @Test
  void aGpuWithPersistenceModeOffIsResetAsItIs() throws Exception {
    Run r = reset("Disabled", "none");
    assertThat(r.exit()).isZero();
    assertThat(r.calls()).noneMatch(c -> c.contains("-pm"));
  }

  @Test
  void aGpuAnotherClientHoldsIsRefusedInTheToolsWordsAndPersistenceRestored() throws Exception {
    Run r = reset("Enabled", "dcgm");
    assertThat(r.exit()).isEqualTo(255);
    assertThat(r.output()).contains("GPU 00000000:1A:00.0: In use by another client");
    assertThat(Files.readString(state.resolve("persistence"))).as("restored after a refusal too").isEqualTo("Enabled\n");
    StepResult failed = GpuResetAction.refused(new StepResult.Failed(Reason.REPAIR_FAILED,
        "GPU reset job gpu-remediator/gpu-reset-1 failed; log tail: " + r.output().strip()));
    assertThat(failed).isInstanceOfSatisfying(StepResult.Failed.class, f -> {
      assertThat(f.reason()).isEqualTo(Reason.RESET_REFUSED);
      assertThat(f.note()).startsWith("nvidia-smi refused the reset: \"The following GPUs could not be reset:"
          + " GPU 00000000:1A:00.0: In use by another client\"");
    });
  }

  @Test
  void aFailureWithoutTheToolsRefusalStaysRepairFailed() {
    StepResult failed = new StepResult.Failed(Reason.REPAIR_FAILED, "GPU reset job gpu-remediator/gpu-reset-1 is gone");
    assertThat(GpuResetAction.refused(failed)).isSameAs(failed);
  }
}
