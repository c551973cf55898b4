package io.gpuremediator.action;

import io.gpuremediator.node.ClusterException;
import io.gpuremediator.outbound.OutboundException;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/** {@code method: job}: a privileged hostPID Job on the node runs {@code systemctl reboot} in the host's namespaces. */
final class JobReboot implements RebootWay {
  static final List<String> COMMAND = List.of("nsenter", "-t", "1", "-m", "-u", "-i", "-n", "-p", "--",
      "systemctl", "reboot");

  @Override
  public String description() {
    return "a privileged Job running " + String.join(" ", COMMAND);
  }

  @Override
  public String ask(LongStepRun<?> run, String image, Duration timeout) throws OutboundException {
    try { // named from the task: creating it again after a lost answer finds the same Job
      String name = PinnedJobs.create(run, new PinnedJobs.Shape("reboot job", "gpu-reboot-", "reboot", image, COMMAND,
          Map.of(), timeout, true, true));
      return "reboot job " + run.ports().jobNamespace() + "/" + name + " created on " + run.node();
    } catch (ClusterException e) {
      throw OutboundException.transientFailure("the reboot job could not be created: " + e.getMessage());
    }
  }
}
