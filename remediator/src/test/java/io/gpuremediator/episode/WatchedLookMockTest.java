package io.gpuremediator.episode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.gpuremediator.action.EpisodeNames;
import io.gpuremediator.state.Stage;
import io.gpuremediator.testing.DraObjects;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A look at a fenced episode whose reset Job runs reads the episode's DeviceTaintRule and its Job from the watches of
 * what episodes hold outside their nodes, not with a GET each: counted in the requests the API server answered.
 */
class WatchedLookMockTest {
  private static final String NODE = "gpu-node-0";
  private static final String RULE = "/devicetaintrules/gpu-remediator." + NODE + ".gpu-3";
  @TempDir Path dir;
  @AutoClose private ClosedLoopHarness h;

  private List<String> readsOfALook() {
    int before = h.server.requestLog().size();
    h.look(NODE);
    List<String> log = h.server.requestLog();
    String job = "/jobs/" + h.job("gpu_reset").getMetadata().getName();
    return log.subList(before, log.size()).stream()
        .filter(r -> r.startsWith("GET ") && (r.contains(RULE) || r.endsWith(job))).toList();
  }

  @Test
  void aLookReadsTheEpisodesRuleAndJobFromTheWatchesNotTheApiServer() throws Exception {
    h = new ClosedLoopHarness(dir, String.format(FenceGpuMockTest.PLAYBOOKS, "NoExecute"),
        ClosedLoopHarness.Fencing.DEFAULT);
    DraObjects.slice(h.client, NODE, 8);
    h.fire(FenceGpuMockTest.xidOn(NODE, 3));
    h.lookUntil(NODE, Stage.REPAIRING, 3);
    assertThat(readsOfALook()).as("without the watches, a look reads both from the API server").hasSize(2);

    try (AutoCloseable rules = h.devices.watchRules(rule -> { });
        AutoCloseable jobs = h.workloads.watchJobs("gpu-remediator", EpisodeNames.JOB_EPISODE_LABEL, node -> { })) {
      await().atMost(Duration.ofSeconds(20)).until(() -> h.server.requestLog().stream().filter(r -> r.contains("watch=true")
          && (r.contains("/devicetaintrules?") || r.contains("/jobs?"))).count() >= 2);
      assertThat(readsOfALook()).as("with them, neither is read").isEmpty();
      assertThat(h.episode(NODE).progress().stage()).as("and the look still sees the Job running")
          .isEqualTo(Stage.REPAIRING);

      h.finishJob("gpu_reset", "Complete", "");
      await().atMost(Duration.ofSeconds(20)).until(() -> {
        h.look(NODE);
        return h.episode(NODE).progress().stage() == Stage.DIAGNOSING;
      });
    }
  }
}
