package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.outbound.OutboundException;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * {@code reboot: {method, timeout, image, on_fail}}: a long step that reboots the node and waits for it to come back.
 * The node's bootID is recorded when the step starts; the step is done only when the Node shows another bootID AND is
 * Ready again, and fails at {@code timeout}, or when the Node object is deleted meanwhile.
 *
 * <p>A reboot is asked at most once per step attempt: the intent is written to the ledger's task before anything is
 * sent ({@link StepResult.Intent}), and a look that finds it written without an answer (a restart or a failover came
 * between) treats it as asked, never asks again. Only an answer that says it was surely not applied (throttled, a 5xx,
 * credentials rejected) clears the intent, and the reboot is asked again after the loop's retry delay, until
 * {@code timeout} (counted from the step's start, whatever the answers): then the step fails {@code reboot_timeout}.
 *
 * <p>The task's handle says where the step is: {@code boot=<id>} (recorded), {@code boot=<id> asked} (the intent),
 * {@code boot=<id> sent} (asked, answered or not).
 */
public final class RebootAction extends BackgroundKind<RebootAction.RebootSpec> {
  /** How a node is rebooted. */
  public enum Method {
    /** A privileged hostPID Job on the node: {@code nsenter -t 1 -m -u -i -n -p -- systemctl reboot}. */
    JOB(new JobReboot()),
    /** EC2 {@code RebootInstances} for the node's providerID. */
    AWS(new Ec2Reboot()),
    /** The node's BMC ({@code cloud.redfish.bmcs}): Redfish {@code ComputerSystem.Reset}, its strongest restart. */
    REDFISH(new RedfishReboot());

    private final RebootWay way;

    Method(RebootWay way) {
      this.way = way;
    }

    /** As written in playbooks. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }

    RebootWay way() {
      return way;
    }
  }

  /**
   * Reboots the node and waits for a new bootID and Ready.
   *
   * @param image the reboot Job's image ({@code method: job}; it needs {@code nsenter})
   * @param onFail the playbook an episode escalates to when the reboot fails; empty: stay out for a human
   */
  public record RebootSpec(Method method, Duration timeout, String image, Optional<String> onFail, boolean dryRun)
      implements RepairStepSpec {
    @Override
    public Optional<Needs> needs() {
      return method == Method.JOB ? Optional.empty() : Optional.of(new Needs(Port.CLOUD, method.code()));
    }
  }

  /** An image with util-linux's nsenter (Debian's is essential, so in every Debian image). */
  static final String DEFAULT_IMAGE = "docker.io/library/debian:bookworm-slim";
  private static final Duration MAX_TIMEOUT = Duration.ofHours(6);
  private static final StepStages STAGES = GpuResetAction.STAGES;

  RebootAction() {
    super(RebootSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<RebootSpec> decode(MapReader params, boolean dryRun) {
    Optional<Method> method = params.requiredString("method").flatMap(m -> {
      for (Method known : Method.values()) {
        if (known.code().equals(m)) {
          return Optional.of(known);
        }
      }
      params.problems().add(params.at("method"), "reboot action: \"method\" must be one of "
          + Arrays.stream(Method.values()).map(Method::code).collect(Collectors.joining(", ")) + ", not \"" + m + "\"");
      return Optional.empty();
    });
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), MAX_TIMEOUT, name());
    boolean hasImage = params.has("image");
    Optional<String> image = PinnedJobs.image(params, name(), Optional.of(DEFAULT_IMAGE));
    Optional<String> onFail = ActionParams.onFail(params, name());
    if (method.isEmpty() || timeout.isEmpty() || image.isEmpty() || ActionParams.onFailInvalid(params, onFail)) {
      return Optional.empty();
    }
    if (hasImage && method.get() != Method.JOB) {
      params.problems().add(params.at("image"), "reboot action: \"image\" is for method job only");
      return Optional.empty();
    }
    return Optional.of(new RebootSpec(method.get(), timeout.get(), image.get(), onFail, dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine reboots in the background. */
  @Override
  public PreparedAction prepare(RebootSpec spec, TemplateContext ctx) {
    String what = "reboot " + ctx.node() + " by " + spec.method().way().description() + ", then wait up to "
        + Durations.format(spec.timeout())
        + " for a new bootID and Ready (on failure: "
        + ActionParams.onFailure(spec.onFail()) + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  @Override
  public WhenNodeGone whenNodeGone() {
    return WhenNodeGone.ENDS_EPISODE;
  }

  @Override
  public boolean retriesThroughStart() {
    return false;
  }

  @Override
  public StepStart start(LongStepRun<RebootSpec> run) throws ClusterException {
    Evidence evidence = Evidence.before(run, "the reboot of " + run.node());
    if (evidence.waiting().isPresent()) {
      return evidence.waiting().get();
    }
    return evidence.go("rebooting " + run.node() + " by " + run.spec().method().code(), run);
  }

  @Override
  public StepResult look(LongStepRun<RebootSpec> run) {
    String handle = run.task().handle();
    Optional<NodeInfo> node = run.ports().cluster().node(run.node());
    if (node.isEmpty()) {
      return new StepResult.Running("the Node object is gone; the episode ends with it", Optional.empty());
    }
    if (handle.isEmpty()) {
      String boot = node.get().bootId();
      if (boot.isEmpty()) {
        return new StepResult.Failed(Reason.REPAIR_FAILED, run.node() + " reports no status.nodeInfo.bootID: its reboot"
            + " could not be seen, so none was asked");
      }
      return new StepResult.Intent(new RebootHandle(boot, RebootHandle.State.ASKED).value(), "asking for a reboot of "
          + run.node() + " (bootID " + boot + ")");
    }
    RebootHandle at = RebootHandle.parse(handle);
    String boot = at.boot();
    Duration timeout = run.spec().timeout();
    boolean late = run.now().isAfter(run.task().started().plus(timeout));
    if (at.state() == RebootHandle.State.RECORDED) {
      if (late) { // every ask answered "not applied" (throttled, a 5xx, an untrusted certificate) since the step began
        return new StepResult.Failed(Reason.REBOOT_TIMEOUT, "no reboot of " + run.node() + " by "
            + run.spec().method().code() + " was applied within " + Durations.format(timeout) + ": every ask was answered"
            + " as not applied (the RebootNotAsked Event names the first answer)");
      }
      return new StepResult.Intent(at.at(RebootHandle.State.ASKED).value(), "asking again for a reboot of "
          + run.node());
    }
    NodeInfo n = node.get();
    Duration took = Duration.between(run.task().started(), run.now());
    if (!n.bootId().isEmpty() && !n.bootId().equals(boot) && n.isReady()) {
      return new StepResult.Succeeded(run.node() + " came back Ready with a new bootID after " + Durations.format(took));
    }
    if (late) {
      return new StepResult.Failed(Reason.REBOOT_TIMEOUT, run.node() + " did not come back Ready with a new bootID within "
          + Durations.format(timeout) + " (bootID " + (n.bootId().equals(boot) ? "unchanged" : "changed") + ", "
          + (n.isReady() ? "Ready" : "not Ready") + ")");
    }
    String state = n.bootId().equals(boot) ? "still on bootID " + boot : "booted (new bootID), not Ready yet";
    String unknown = at.state() == RebootHandle.State.ASKED
        ? "; the reboot was asked before a restart and is not asked again" : "";
    return new StepResult.Running("rebooting by " + run.spec().method().code() + ": " + state + unknown,
        Optional.empty());
  }

  /** Asks for the reboot the intent recorded: once, whatever comes back. */
  @Override
  public StepResult send(LongStepRun<RebootSpec> run) {
    RebootHandle at = RebootHandle.parse(run.task().handle());
    String boot = at.boot();
    String sent = at.at(RebootHandle.State.SENT).value();
    String node = run.node();
    try {
      String how = run.spec().method().way().ask(run, run.spec().image(), run.spec().timeout());
      return new StepResult.Started(sent, how + "; waiting for a new bootID and Ready", how + " (bootID was " + boot
          + "; timeout " + Durations.format(run.spec().timeout()) + ")");
    } catch (OutboundException e) {
      if (e.maybeApplied()) {
        return new StepResult.Started(sent, "reboot of " + node + " asked, no answer (" + e.getMessage() + "): treated as"
            + " asked, not asked again; waiting for a new bootID", "reboot of " + node + " asked by "
            + run.spec().method().code() + ", its answer lost: " + e.getMessage());
      }
      if (!e.retriable()) {
        Reason reason = e.unsupported() ? Reason.REBOOT_UNSUPPORTED : e.mismatch() ? Reason.BMC_MISMATCH
            : Reason.REPAIR_FAILED;
        return new StepResult.Failed(reason, "reboot of " + node + " refused: " + e.getMessage());
      }
      Instant again = run.now().plus(run.ports().retryDelay());
      run.warn().accept("RebootNotAsked", "reboot of " + node + " not applied: " + e.getMessage() + "; asked again later");
      return new StepResult.Recorded(at.at(RebootHandle.State.RECORDED).value(), "reboot not applied: " + e.getMessage()
          + "; asked again at " + again,
          Optional.of(again));
    }
  }
}
