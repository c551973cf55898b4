package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code gpu_reset: {gpus, image, command, timeout, on_fail}}: a long step, a privileged Job pinned to the node (after
 * a drain: no process holds the GPU) that resets the named GPUs; it passes when the Job completes. {@code gpus} renders
 * to comma-separated GPU indices (by default the alert's {@code gpu} label; without one, every GPU of the node), and
 * {@code {{ gpus }}} in the command is replaced by them. After a {@code fence_gpu} it resets the fenced GPUs only (by
 * UUID), once no pod holds them ({@link FencedGpus}). Naming, labels and tolerations are every step Job's
 * ({@link PinnedJobs}); a failure escalates to {@code on_fail}, else the episode stops in {@code repair_failed}.
 */
public final class GpuResetAction extends BackgroundKind<GpuResetAction.GpuResetSpec> {
  /**
   * Resets the named GPUs of the node with a privileged Job.
   *
   * @param gpus the GPU indices (a template); empty: the alert's {@code gpu} label, else every GPU
   * @param command the command, with {@code {{ gpus }}} replaced; empty: {@code nvidia-smi -r [-i GPUS]} with persistence
   *     mode off for the reset and back on after ({@link #DEFAULT_SCRIPT})
   * @param onFail the playbook an episode escalates to when the reset fails; empty: stay out for a human
   */
  public record GpuResetSpec(Optional<Template> gpus, String image, Optional<List<String>> command, Duration timeout,
      Optional<String> onFail, boolean dryRun) implements RepairStepSpec {  }

  /** The image of the contract's example: nvidia-smi comes from the driver, mounted by the NVIDIA runtime. */
  static final String DEFAULT_IMAGE = "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04";
  /** The task's handle while the GPU Operator's DCGM and exporter leave the node, before the Job is created. */
  private static final String PAUSING = "pausing-gpu-clients";
  private static final Pattern GPUS_VARIABLE = Pattern.compile("\\{\\{\\s*gpus\\s*}}");
  /** The default command's script (resources: gpu-reset.sh), run by {@code sh -c SCRIPT gpu-reset GPUS}. */
  static final String DEFAULT_SCRIPT = ShippedScripts.read("gpu-reset.sh");
  /**
   * What nvidia-smi prints when it refuses a reset (tests/real/nvidia-smi: "could not be reset ... In use by another
   * client", "is currently in use by another process"); such a failure is {@code reset_refused}, with the tool's words.
   */
  private static final Pattern REFUSED = Pattern.compile("(?m)^.*(could not be reset|In use by another client"
      + "|in use by another process|Unable to reset|Reset (is )?not supported).*$");
  private static final Duration MAX_TIMEOUT = Duration.ofHours(6);
  /** What the NVIDIA container runtime reads to mount every GPU and the driver's utilities (nvidia-smi) in. */
  private static final Map<String, String> NVIDIA_ENV = Map.of("NVIDIA_VISIBLE_DEVICES", "all",
      "NVIDIA_DRIVER_CAPABILITIES", "utility");
  static final StepStages STAGES = new StepStages(Stage.REPAIRING, Optional.empty(), Stage.REPAIR_FAILED,
      Reason.REPAIR_STARTED, Reason.REPAIRED, Reason.REPAIR_FAILED);

  GpuResetAction() {
    super(GpuResetSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<GpuResetSpec> decode(MapReader params, boolean dryRun) {
    boolean hasGpus = params.has("gpus");
    Optional<Template> gpus = ActionParams.template(params, "gpus", FieldRule.GPU_INDICES, false, name());
    Optional<String> image = PinnedJobs.image(params, name(), Optional.of(DEFAULT_IMAGE));
    boolean hasCommand = params.has("command");
    Optional<List<String>> command = PinnedJobs.command(params, name(), Optional.of(List.of()));
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(10), MAX_TIMEOUT, name());
    Optional<String> onFail = ActionParams.onFail(params, name());
    if ((hasGpus && gpus.isEmpty()) || image.isEmpty() || command.isEmpty() || timeout.isEmpty()
        || ActionParams.onFailInvalid(params, onFail)) {
      return Optional.empty();
    }
    return Optional.of(new GpuResetSpec(gpus, image.get(), hasCommand ? command : Optional.empty(), timeout.get(),
        onFail, dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine runs the Job in the background. */
  @Override
  public PreparedAction prepare(GpuResetSpec spec, TemplateContext ctx) throws RenderException {
    String gpus = gpus(spec, ctx);
    String command = spec.command().isEmpty() ? "nvidia-smi -r" + (gpus.isEmpty() ? "" : " -i " + gpus)
        + " (persistence mode off for the reset, back on after)" : String.join(" ", command(spec, gpus));
    String what = "reset GPUs of " + ctx.node() + ": run " + command + " (" + spec.image() + ") as a"
        + " privileged Job (timeout " + Durations.format(spec.timeout()) + "; on failure: "
        + ActionParams.onFailure(spec.onFail()) + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /** Renders the GPUs first: a reset that cannot say which GPUs never starts, a human decides. */
  @Override
  public StepStart start(LongStepRun<GpuResetSpec> run) throws ClusterException {
    Optional<StepStart> held = FencedGpus.waitWhileHeld(run, "the reset");
    if (held.isPresent()) {
      return held.get();
    }
    try {
      String gpus = gpus(run);
      return new StepStart.Go("resetting " + (gpus.isEmpty() ? "every GPU" : "GPU " + gpus) + " of " + run.node(),
          Optional.empty());
    } catch (RenderException e) {
      return new StepStart.Impossible(Reason.TEMPLATE_INVALID, "gpu_reset on " + run.node() + ": " + e.getMessage());
    }
  }

  @Override
  public boolean retriesThroughStart() {
    return false;
  }

  /**
   * The step ended some other way (released, overridden, escalated mid-reset): the GPU clients it paused run again. A
   * write that fails here leaves the exporter paused, which the rules say (GpuTelemetryMissing) and the next reset of
   * the node resumes.
   */
  @Override
  public void cancel(String node, StepPorts ports) {
    try {
      GpuClients.resume(ports.cluster(), node);
    } catch (ClusterException e) {
      // said by the telemetry rules, repaired by the node's next reset
    }
  }

  @Override
  public StepResult look(LongStepRun<GpuResetSpec> run) throws ClusterException {
    GpuResetSpec spec = run.spec();
    List<String> command;
    try {
      command = command(spec, gpus(run));
    } catch (RenderException e) {
      return new StepResult.Failed(Reason.TEMPLATE_INVALID, "gpu_reset on " + run.node() + ": " + e.getMessage());
    }
    PinnedJobs.Shape shape = new PinnedJobs.Shape("GPU reset job", "gpu-reset-", name(), spec.image(), command, NVIDIA_ENV,
        spec.timeout(), true, false);
    String handle = run.task().handle();
    if (spec.command().isEmpty() && (handle.isEmpty() || handle.equals(PAUSING))) {
      Optional<StepResult> paused = pauseClients(run);
      if (paused.isPresent()) {
        return paused.get();
      }
      return PinnedJobs.started(run, shape);
    }
    StepResult result = refused(PinnedJobs.createOrLook(run, shape, Reason.REPAIR_FAILED));
    if (spec.command().isEmpty() && (result instanceof StepResult.Succeeded || result instanceof StepResult.Failed)) {
      List<String> resumed = GpuClients.resume(run.ports().cluster(), run.node());
      String after = resumed.isEmpty() ? "" : "; " + String.join(", ", resumed) + " resumed (nvidia.com/gpu.deploy.*=true)";
      return result instanceof StepResult.Failed f ? new StepResult.Failed(f.reason(), f.note() + after)
          : new StepResult.Succeeded(((StepResult.Succeeded) result).note() + after, ((StepResult.Succeeded) result).kept());
    }
    return result;
  }

  /**
   * Before the default reset's Job: the GPU Operator's DCGM and exporter on the node paused, and their pods gone (each
   * holds the GPUs open: the reset would be refused). Empty once none runs there: the Job may be created.
   */
  private static Optional<StepResult> pauseClients(LongStepRun<GpuResetSpec> run) throws ClusterException {
    boolean first = GpuClients.pausedOn(run.ports().cluster(), run.node()).isEmpty();
    List<String> paused = GpuClients.pause(run.ports().cluster(), run.node());
    if (paused.isEmpty()) {
      return Optional.empty();
    }
    List<PodInfo> stopping = GpuClients.stillRunningPods(run.ports().workloads().podsOn(run.node()), paused);
    if (first) {
      stopping.forEach(p -> PodNotices.tell(run, p, "is stopped (its DaemonSet paused) for a GPU reset",
          PodNotices.gpuOf(run)));
    }
    List<String> left = stopping.stream().map(PodInfo::ref).toList();
    if (left.isEmpty()) {
      return Optional.empty();
    }
    String what = String.join(", ", paused) + " paused for the reset (nvidia.com/gpu.deploy.*=" + GpuClients.PAUSED + ")";
    if (run.now().isAfter(run.task().started().plus(run.spec().timeout()))) {
      List<String> resumed = GpuClients.resume(run.ports().cluster(), run.node());
      return Optional.of(new StepResult.Failed(Reason.RESET_REFUSED, what + ", but " + String.join(", ", left)
          + " still held the GPUs after " + Durations.format(run.spec().timeout()) + "; nothing reset, "
          + String.join(", ", resumed) + " resumed"));
    }
    return Optional.of(new StepResult.Recorded(PAUSING, what + "; waiting for " + String.join(", ", left)
        + " to leave " + run.node(), Optional.empty()));
  }

  /** A failed reset whose log holds nvidia-smi's refusal is {@code reset_refused}, naming the tool's words. */
  static StepResult refused(StepResult result) {
    if (result instanceof StepResult.Failed f && f.reason() == Reason.REPAIR_FAILED) {
      Matcher m = REFUSED.matcher(f.note());
      List<String> words = new ArrayList<>();
      while (m.find()) {
        words.add(m.group().replaceFirst(".*log tail: ", "").strip());
      }
      if (!words.isEmpty()) {
        return new StepResult.Failed(Reason.RESET_REFUSED, "nvidia-smi refused the reset: \"" + String.join(" ", words)
            + "\" (" + f.note() + ")");
      }
    }
    return result;
  }

  /** The fenced GPUs' UUIDs after a {@code fence_gpu} (those only), else the GPUs the spec names for the alert. */
  private static String gpus(LongStepRun<GpuResetSpec> run) throws RenderException {
    String fenced = FencedGpus.uuids(run);
    return fenced.isEmpty() ? gpus(run.spec(), context(run.node(), run.episode())) : fenced;
  }

  /**
   * The GPU indices to reset for one alert; empty: every GPU of the node. Without {@code gpus}, the alert's {@code gpu}
   * label when it is an index, else every GPU (a label such as {@code unknown} never stops a repair: the node is
   * drained, so resetting all its GPUs costs no work). A {@code gpus} the playbook wrote must render to indices.
   */
  static String gpus(GpuResetSpec spec, TemplateContext ctx) throws RenderException {
    if (spec.gpus().isEmpty()) {
      String label = ctx.labels().getOrDefault("gpu", "");
      return FieldRule.GPU_INDICES.check(label).isEmpty() ? label : "";
    }
    String rendered = spec.gpus().get().render(ctx);
    Optional<String> invalid = FieldRule.GPU_INDICES.check(rendered);
    if (invalid.isPresent()) {
      throw new RenderException("\"gpus\" (" + spec.gpus().get().source() + ") rendered " + invalid.get());
    }
    return rendered;
  }

  /** The command with {@code {{ gpus }}} replaced; the default resets the named GPUs, or every GPU. */
  static List<String> command(GpuResetSpec spec, String gpus) {
    if (spec.command().isEmpty()) {
      return List.of("sh", "-c", DEFAULT_SCRIPT, "gpu-reset", gpus);
    }
    return withGpus(spec.command().get(), gpus);
  }

  /** The command with {@code {{ gpus }}} replaced by these GPUs. */
  static List<String> withGpus(List<String> command, String gpus) {
    List<String> out = new ArrayList<>();
    for (String arg : command) {
      out.add(GPUS_VARIABLE.matcher(arg).replaceAll(Matcher.quoteReplacement(gpus)));
    }
    return out;
  }

  private static TemplateContext context(String node, Episode e) {
    return new TemplateContext(e.labels(), e.annotations(), node, e.alertname(), e.fingerprint());
  }
}
