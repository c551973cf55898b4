package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.device.Device;
import io.gpuremediator.device.DeviceRef;
import io.gpuremediator.device.DeviceTaint;
import io.gpuremediator.device.DraScope;
import io.gpuremediator.device.FenceRule;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.FieldRule;
import io.gpuremediator.node.NodeKeys;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.RepairStepSpec;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.safety.GpuBudget;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.FencedGpu;
import io.gpuremediator.state.Stage;
import io.gpuremediator.yaml.MapReader;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * {@code fence_gpu: {gpus, effect, key, on_fail}}: takes one GPU out of service instead of its node. A cluster-scoped
 * DeviceTaintRule ({@code resource.k8s.io/v1}) on the device the node publishes in its DRA driver's ResourceSlices whose
 * {@code uuid} (or {@code index}, where the driver publishes one) is the rendered {@code gpus}. The node is not cordoned
 * or tainted; its other GPUs' pods keep running. Under {@code NoExecute} the pods using the GPU are evicted through
 * the Eviction API (their PodDisruptionBudgets hold), but the DaemonSet pods of {@code dra.keep_namespaces}, and the
 * rule is written {@code NoSchedule}: a {@code NoExecute} rule would have the device taint eviction controller delete
 * every pod whose claim uses the GPU, the GPU Operator's DRA exporter among them (its claim takes every GPU of the node
 * with {@code allocationMode: All} and {@code adminAccess}, neither exempt, no toleration), and the node would go dark;
 * a restarted exporter is still allocated the node's other GPUs. The step passes once every other holder is evicted.
 * Under {@code NoSchedule} they finish; {@code None} only shows the taint (a dry run in the cluster). The rule's name follows from node and device ({@link EpisodeNames#fenceRuleName}): a restart finds it.
 * Its start takes a place in the GPU limits, its look reads the node's slices once and writes the rule. A node that
 * already has {@code safety.max_fenced_per_node} GPUs fenced, or publishes no such device (a device-plugin node), fails
 * the step to {@code on_fail} (the node path); the fleet's GPU budget ({@code safety.max_unavailable_gpus}) makes it
 * wait. The episode keeps the GPU ({@link FencedGpu}); its
 * {@code gpu_reset} and {@code diagnose} then act on it only, and {@code unfence_gpu} or the episode's end give it back.
 */
public final class FenceGpuAction extends BackgroundKind<FenceGpuAction.FenceGpuSpec> {
  /**
   * Fences one GPU of the node with a DeviceTaintRule.
   *
   * @param gpus the GPU's UUID or index (a template)
   * @param effect {@code NoExecute}, {@code NoSchedule} or {@code None}
   * @param onFail the node playbook taken when nothing can be fenced
   */
  public record FenceGpuSpec(Template gpus, String effect, String key, Optional<String> onFail, boolean dryRun)
      implements RepairStepSpec {
    @Override
    public boolean fencesGpu() {
      return !dryRun;
    }
  }

  /** The driver whose ResourceSlices publish the GPUs, unless {@code dra.driver} says otherwise. */
  public static final String NVIDIA_DRIVER = DraScope.NVIDIA_DRIVER;
  private static final Set<String> EFFECTS = Set.of("NoExecute", "NoSchedule", "None");
  private static final StepStages STAGES = new StepStages(Stage.QUARANTINED, Optional.of(Stage.FENCED),
      Stage.NEEDS_HUMAN, Reason.GPU_FENCED, Reason.GPU_FENCED, Reason.GPU_NOT_PUBLISHED);

  FenceGpuAction() {
    super(FenceGpuSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<FenceGpuSpec> decode(MapReader params, boolean dryRun) {
    Optional<Template> gpus = ActionParams.template(params, "gpus", FieldRule.LABEL_VALUE, true, name());
    Optional<String> effect = params.string("effect").or(() -> Optional.of("NoExecute")).filter(e -> {
      if (!EFFECTS.contains(e)) {
        params.problems().add(params.at("effect"), name() + " action: \"effect\" must be one of NoExecute, NoSchedule,"
            + " None, not \"" + e + "\"");
        return false;
      }
      return true;
    });
    Optional<String> key = params.has("key") ? ActionParams.ownKey(params, name())
        : Optional.of(NodeKeys.DOMAIN + "unhealthy");
    Optional<String> onFail = ActionParams.onFail(params, name());
    if (gpus.isEmpty() || effect.isEmpty() || key.isEmpty() || ActionParams.onFailInvalid(params, onFail)) {
      return Optional.empty();
    }
    return Optional.of(new FenceGpuSpec(gpus.get(), effect.get(), key.get(), onFail, dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine writes the rule in the background. */
  @Override
  public PreparedAction prepare(FenceGpuSpec spec, TemplateContext ctx) throws RenderException {
    String gpu = gpu(spec, ctx);
    String what = "fence GPU " + gpu + " of " + ctx.node() + " with a DeviceTaintRule (" + spec.key() + ":"
        + spec.effect() + "); the node stays in service (no such device: " + ActionParams.onFailure(spec.onFail()) + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  /**
   * Takes a place in the GPU limits for the alert's GPU (by its UUID or index: no read of the slices, which the look
   * makes once): one that cannot be placed on its node fails to the node path, one the fleet has no room for waits.
   */
  @Override
  public StepStart start(LongStepRun<FenceGpuSpec> run) {
    String gpu;
    try {
      gpu = gpu(run.spec(), context(run));
    } catch (RenderException e) {
      return new StepStart.Impossible(Reason.TEMPLATE_INVALID, "fence_gpu on " + run.node() + ": " + e.getMessage());
    }
    Optional<Refusal> refused = run.ports().limits().gpus().take(run.node(), gpu, run.now());
    if (refused.isPresent() && refused.get().reason() == Reason.FENCED_PER_NODE) {
      return new StepStart.Failed(Reason.FENCED_PER_NODE, "GPU " + gpu + " of " + run.node() + " not fenced: "
          + refused.get().detail());
    }
    if (refused.isPresent()) {
      String note = "fencing GPU " + gpu + " of " + run.node() + " waits: " + refused.get().detail();
      run.warn().accept(refused.get().reason() == Reason.GPU_COUNT_UNKNOWN ? "GpuCountUnknown" : "GpuBudgetExhausted",
          note); // a refusal is an Event too, as every limit's is
      return new StepStart.Wait(refused.get().reason(), note, false);
    }
    return new StepStart.Go("fencing GPU " + gpu + " of " + run.node(), Optional.empty());
  }

  /** The fence's GPU place, taken as {@link #start} takes it (a place taken twice is one); empty when it renders nothing. */
  static Optional<Refusal> room(FenceGpuSpec spec, TemplateContext ctx, GpuBudget gpus, String node,
      Instant now) {
    try {
      return gpus.take(node, gpu(spec, ctx), now);
    } catch (RenderException e) {
      return Optional.empty();
    }
  }

  /**
   * What the fence would do, read now and changing nothing (a dry-run): the device the node's ResourceSlices publish for
   * the alert's GPU and the DeviceTaintRule it would write, or why none; and a refusal the GPU limits would give.
   */
  static String wouldFence(FenceGpuSpec spec, TemplateContext ctx, StepPorts ports, String node, Instant now) {
    String gpu;
    try {
      gpu = gpu(spec, ctx);
    } catch (RenderException e) {
      return "fence_gpu on " + node + ": " + e.getMessage();
    }
    String driver = ports.draDriver();
    List<Device> devices;
    try {
      devices = ports.devices().onNode(node, driver);
    } catch (ClusterException e) {
      return "fence_gpu would look for GPU " + gpu + " in the ResourceSlices of " + driver + ", which could not be read ("
          + e.getMessage() + ")";
    }
    Optional<Device> d = devices.stream().filter(x -> x.is(gpu)).findFirst();
    if (d.isEmpty()) {
      return "fence_gpu would find no device with uuid or index " + gpu + " in the ResourceSlices of " + driver + " on "
          + node + " (" + devices.size() + " devices): " + ActionParams.onFailure(spec.onFail());
    }
    DeviceRef ref = d.get().ref();
    return "fence_gpu would fence device " + ref.driver() + "/" + ref.pool() + "/" + ref.device() + " (GPU "
        + d.get().uuid().orElse(gpu) + ") with DeviceTaintRule " + EpisodeNames.fenceRuleName(node, ref.pool(),
        ref.device()) + " (" + spec.key() + ":" + spec.effect() + ")" + ports.limits().gpus().check(node, gpu, now)
        .map(r -> "; the GPU limits would refuse it now: " + r.reason().code() + " (" + r.detail() + ")").orElse("");
  }

  @Override
  public boolean retriesThroughStart() {
    return true;
  }

  /** Writes the rule (found when it exists) and passes; the episode keeps the GPU. */
  @Override
  public StepResult look(LongStepRun<FenceGpuSpec> run) throws ClusterException {
    Found found = find(run);
    if (found.device().isEmpty()) {
      return new StepResult.Failed(Reason.GPU_NOT_PUBLISHED, found.why());
    }
    Device d = found.device().get();
    FenceGpuSpec spec = run.spec();
    String name = EpisodeNames.fenceRuleName(run.node(), d.ref().pool(), d.ref().device());
    String uuid = d.uuid().orElse(found.gpu());
    boolean evicts = spec.effect().equals("NoExecute");
    String written = evicts ? "NoSchedule" : spec.effect(); // the eviction is ours: see the class
    run.ports().devices().fence(new FenceRule(name, d.ref(), new DeviceTaint(spec.key(), value(run.episode()), written),
        Map.of(NodeKeys.MANAGED_LABEL, "true", EpisodeNames.JOB_EPISODE_LABEL,
            EpisodeNames.episodeHash(run.node(), run.episode()))));
    String fenced = "GPU " + uuid + " of " + run.node() + " fenced: DeviceTaintRule " + name + " on " + d.ref() + " ("
        + spec.key() + "=" + value(run.episode()) + ":" + written + ")";
    String moved = "";
    if (evicts) {
      HolderEvictions evictions = HolderEvictions.of(run, GpuHolders.of(run, d.ref()), uuid);
      if (evictions.waiting().isPresent()) {
        return new StepResult.Running(fenced + "; " + evictions.waiting().get(),
            Optional.of(run.now().plus(run.ports().retryDelay())));
      }
      moved = evictions.done();
    }
    return new StepResult.Succeeded(fenced + moved + "; the node stays in service",
        new StepResult.Kept.Holds(new FencedGpu(d.ref().driver(), d.ref().pool(), d.ref().device(), uuid, name).held()));
  }

  @Override
  public void cancel(String node, StepPorts ports) {
    ports.limits().gpus().release(node);
  }

  /** The alert's GPU and the device the node publishes for it, or why there is none. */
  private record Found(String gpu, Optional<Device> device, String why) {}

  private Found find(LongStepRun<FenceGpuSpec> run) throws ClusterException {
    String gpu;
    try {
      gpu = gpu(run.spec(), context(run));
    } catch (RenderException e) {
      return new Found("", Optional.empty(), "fence_gpu on " + run.node() + ": " + e.getMessage());
    }
    String driver = run.ports().draDriver();
    List<Device> devices = run.ports().devices().onNode(run.node(), driver);
    Optional<Device> device = devices.stream().filter(d -> d.is(gpu)).findFirst();
    return new Found(gpu, device, device.isPresent() ? "" : run.node() + " publishes no device with uuid or index " + gpu
        + " in the ResourceSlices of " + driver + " (" + (devices.isEmpty() ? "none at all: a device-plugin node?"
        : devices.size() + " other devices") + "); nothing fenced");
  }

  private static TemplateContext context(LongStepRun<FenceGpuSpec> run) {
    Episode e = run.episode();
    return new TemplateContext(e.labels(), e.annotations(), run.node(), e.alertname(), e.fingerprint());
  }

  private static String gpu(FenceGpuSpec spec, TemplateContext ctx) throws RenderException {
    String rendered = spec.gpus().render(ctx);
    Optional<String> invalid = FieldRule.LABEL_VALUE.check(rendered);
    if (rendered.isEmpty() || invalid.isPresent()) {
      throw new RenderException("\"gpus\" (" + spec.gpus().source() + ") rendered " + invalid.orElse("an empty value")
          + ": a GPU's UUID or index");
    }
    return rendered;
  }

  /** The taint's value: the alert's name, as a label value (an alert name may hold a colon). */
  private static String value(Episode e) {
    String v = e.alertname().replaceAll("[^A-Za-z0-9_.-]", "_");
    v = v.length() > 63 ? v.substring(0, 63) : v;
    return v.replaceAll("^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "");
  }
}
