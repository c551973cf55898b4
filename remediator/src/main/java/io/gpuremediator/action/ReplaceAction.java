package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.ReplaceProvider;
import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * {@code replace: {provider: aws | karpenter | cluster-api, via, timeout}}: a long step that has the node replaced by
 * whatever provisioned it ({@link Replacement}): an Auto Scaling group, Karpenter, or a Cluster API MachineSet. The
 * provider first checks the node can be replaced its way (nothing is called when it cannot); the fleet's replacement
 * budget ({@code safety.replace_rate_limit}, the pause, the breaker) admits it; the provider asks once, after a fresh
 * look finds it not asked yet; the step ends when the Node object is gone, or fails at {@code timeout}. The task's
 * handle is empty until the replacement was asked, then names what was asked of.
 */
public final class ReplaceAction extends BackgroundKind<ReplaceAction.ReplaceSpec> {
  /** The providers, as {@code provider} names them. */
  static final List<String> PROVIDERS = ReplaceProvider.names();
  private static final Pattern INSTANCE_ID = Pattern.compile("i-[0-9a-f]+");

  /**
   * Has the node replaced by {@code provider}; the step ends when the Node object is gone, or fails at {@code timeout}.
   *
   * @param via what a cluster-api replacement does to the Machine ({@code delete} for every other provider)
   */
  public record ReplaceSpec(String provider, ReplaceVia via, Duration timeout, boolean dryRun) implements LongStepSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.CLOUD, provider));
    }

    /** What the provider is asked. */
    ReplaceRequest request() {
      return new ReplaceRequest(provider, via, timeout);
    }
  }

  private static final StepStages STAGES = new StepStages(Stage.REPLACING, Optional.empty(), Stage.NEEDS_HUMAN,
      Reason.REPLACE_STARTED, Reason.REPLACED, Reason.REPLACE_FAILED);

  ReplaceAction() {
    super(ReplaceSpec.class, Set.of(Phase.FIRING), STAGES);
  }

  @Override
  public Optional<ReplaceSpec> decode(MapReader params, boolean dryRun) {
    Optional<String> provider = params.requiredString("provider").filter(p -> {
      if (!PROVIDERS.contains(p)) {
        params.problems().add(params.at("provider"), "replace action: \"provider\" must be one of "
            + String.join(", ", PROVIDERS) + ", not \"" + p + "\"");
        return false;
      }
      return true;
    });
    boolean hasVia = params.has("via");
    Optional<ReplaceVia> via = params.string("via").flatMap(v -> {
      Optional<ReplaceVia> known = ReplaceVia.of(v);
      if (known.isEmpty()) {
        params.problems().add(params.at("via"), "replace action: \"via\" must be delete or remediate_annotation, not \""
            + v + "\"");
      } else if (provider.isPresent() && !provider.get().equals(ReplaceProvider.CLUSTER_API.name())) {
        params.problems().add(params.at("via"), "replace action: \"via\" is for provider cluster-api only, not "
            + provider.get());
        return Optional.empty();
      }
      return known;
    });
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), Duration.ofHours(24), name());
    if (provider.isEmpty() || timeout.isEmpty() || (hasVia && via.isEmpty())) {
      return Optional.empty();
    }
    return Optional.of(new ReplaceSpec(provider.get(), via.orElse(ReplaceVia.DELETE), timeout.get(), dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine replaces the node in the background. */
  @Override
  public PreparedAction prepare(ReplaceSpec spec, TemplateContext ctx) {
    String what = ReplaceProviders.of(spec.provider()).what(spec.request(), ctx.node());
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  @Override
  public WhenNodeGone whenNodeGone() {
    return WhenNodeGone.PASSES;
  }

  /**
   * A provider through the Kubernetes API must be deployed (its RBAC), then the provider checks the node; the fleet's
   * budget admits; nothing outside is called when it cannot be replaced.
   */
  @Override
  public StepStart start(LongStepRun<ReplaceSpec> run) throws ClusterException {
    ReplaceProvider provider = ReplaceProvider.named(run.spec().provider()).orElseThrow();
    Optional<StepStart.Impossible> impossible = provider.owner().isPresent() ? ReplaceSteps.notConfigured(run, provider)
        : Optional.empty();
    if (impossible.isEmpty()) {
      impossible = ReplaceProviders.of(provider.name()).check(run, run.spec().request());
    }
    if (impossible.isPresent()) {
      return impossible.get();
    }
    Evidence evidence = Evidence.before(run, "the replacement of " + run.node());
    if (evidence.waiting().isPresent()) {
      return evidence.waiting().get();
    }
    Optional<Refusal> no = run.ports().limits().replacements().admit(run.node());
    if (no.isPresent()) {
      return new StepStart.Wait(no.get().reason(), "waiting to replace: " + no.get().detail(), false);
    }
    return evidence.go("replacing through " + run.spec().provider(), run);
  }

  /** Asks the provider (once), then waits for the Node object to go, or times out. */
  @Override
  public StepResult look(LongStepRun<ReplaceSpec> run) throws ClusterException {
    if (run.task().handle().isEmpty()) {
      return ReplaceProviders.of(run.spec().provider()).ask(run, run.spec().request());
    }
    if (run.now().isAfter(run.task().started().plus(run.spec().timeout()))) {
      return new StepResult.Failed(Reason.REPLACE_TIMEOUT, named(run.task().handle()) + " was asked to be replaced,"
          + " but the Node object is still here after " + Durations.format(run.spec().timeout()));
    }
    String note = ReplaceProviders.of(run.spec().provider()).whileWaiting(run).orElse(run.episode().progress().note());
    return new StepResult.Running(note, Optional.empty());
  }

  /** How decisions name what a replacement asked of (its task's handle): an instance, a NodeClaim, a Machine. */
  public static String named(String handle) {
    return INSTANCE_ID.matcher(handle).matches() ? "instance " + handle : handle;
  }
}
