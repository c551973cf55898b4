package io.gpuremediator.action;

import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.decision.Refusal;
import io.gpuremediator.decision.StepOutcome;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.LongStepSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Stage;
import io.gpuremediator.value.Durations;
import io.gpuremediator.workload.Eviction;
import io.gpuremediator.workload.PodInfo;
import io.gpuremediator.yaml.MapReader;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import java.util.stream.Collectors;

/**
 * {@code drain: {mode, timeout, grace_period, skip_namespaces, policies}}: a long step that moves the workload off the
 * node. Each look lists the node's pods, leaves alone what a drain never moves (DaemonSet and mirror pods, skipped
 * namespaces, finished pods), and evicts the rest through the Eviction API, but a pod a policy holds back (waiting for
 * its checkpoint or its completion, {@link DrainPolicy}). Stateless between looks: everything it
 * needs is the node's pods now and the task's start, so a restart resumes it, and an eviction the API refused is
 * simply asked again later, never forced past a budget. It starts only with a drain slot ({@code safety.max_draining}).
 */
public final class DrainAction extends BackgroundKind<DrainAction.DrainSpec> {
  /** How a drain treats the pods it finds. */
  public enum DrainMode {
    /** Evict through the Eviction API (PodDisruptionBudgets respected); at timeout the step fails. */
    EVICT,
    /** Evict nothing: wait for the pods to finish; at timeout the step fails. */
    WAIT,
    /** Evict; at timeout delete what is left (a checkpointing job gets until then). */
    EVICT_THEN_DELETE;

    /** The mode as written in playbooks. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Moves the workload off the node: PodDisruptionBudget-aware eviction (policy/v1).
   *
   * @param gracePeriod the most a pod gets to terminate, whatever its own terminationGracePeriodSeconds
   * @param skipNamespaces pods in namespaces matching this regex are left alone (DaemonSet and mirror pods always are)
   * @param policies per workload, how its pods are moved ({@link DrainPolicy}); a pod none selects is evicted
   */
  public record DrainSpec(DrainMode mode, Duration timeout, Duration gracePeriod,
      Pattern skipNamespaces, List<DrainPolicy> policies, boolean dryRun) implements LongStepSpec {
    /** Copies the policies. */
    public DrainSpec {
      policies = List.copyOf(policies);
    }
  }

  /** Namespaces a drain leaves alone unless the playbook says otherwise: the cluster's and ours. */
  static final String DEFAULT_SKIP_NAMESPACES = "^(kube-system|gpu-operator|gpu-remediator)$";
  private static final Pattern DEFAULT_SKIP = Pattern.compile(DEFAULT_SKIP_NAMESPACES);
  private static final Duration MAX_TIMEOUT = Duration.ofDays(7);
  private static final int NAMES_SHOWN = 5;
  private static final StepStages STAGES = new StepStages(Stage.DRAINING, Optional.of(Stage.DRAINED), Stage.DRAIN_FAILED,
      Reason.DRAIN_STARTED, Reason.DRAINED, Reason.DRAIN_FAILED);

  /** Whether the episode is draining its node: it holds a drain slot, and its node's pods are watched. */
  public static boolean draining(Episode e) {
    return e.progress().stage() == STAGES.running();
  }

  DrainAction() {
    super(DrainSpec.class, Set.of(Phase.FIRING, Phase.RESOLVED), STAGES);
  }

  @Override
  public Optional<DrainSpec> decode(MapReader params, boolean dryRun) {
    Optional<DrainMode> mode = Optional.of(DrainMode.EVICT);
    if (params.has("mode")) {
      mode = params.requiredString("mode").flatMap(text -> {
        for (DrainMode m : DrainMode.values()) {
          if (m.code().equals(text)) {
            return Optional.of(m);
          }
        }
        params.problems().add(params.at("mode"), "drain action: \"mode\" must be one of "
            + Arrays.stream(DrainMode.values()).map(DrainMode::code).collect(Collectors.joining(", ")) + ", not \"" + text + "\"");
        return Optional.empty();
      });
    }
    Optional<Duration> timeout = ActionParams.duration(params, "timeout", Duration.ofMinutes(30), MAX_TIMEOUT, name());
    Optional<Duration> grace = ActionParams.duration(params, "grace_period", Duration.ofMinutes(5), MAX_TIMEOUT, name());
    Optional<Pattern> skip = Optional.of(Pattern.compile(DEFAULT_SKIP_NAMESPACES));
    if (params.has("skip_namespaces")) {
      skip = params.requiredString("skip_namespaces").flatMap(regex -> {
        try {
          return Optional.of(Pattern.compile(regex));
        } catch (PatternSyntaxException e) {
          params.problems().add(params.at("skip_namespaces"), "drain action: \"skip_namespaces\" is not a regular expression: "
              + e.getDescription());
          return Optional.empty();
        }
      });
    }
    Optional<List<DrainPolicy>> policies = DrainPolicy.decode(params, timeout.orElse(MAX_TIMEOUT));
    if (mode.isEmpty() || timeout.isEmpty() || grace.isEmpty() || skip.isEmpty() || policies.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(new DrainSpec(mode.get(), timeout.get(), grace.get(), skip.get(), policies.get(), dryRun));
  }

  /** Applied to a draft it only says what will happen; the episode engine evicts the pods in the background. */
  @Override
  public PreparedAction prepare(DrainSpec spec, TemplateContext ctx) {
    String what = "drain " + ctx.node() + ": " + spec.mode().code() + " pods (timeout " + Durations.format(spec.timeout())
        + ", grace period at most " + Durations.format(spec.gracePeriod()) + ", namespaces skipped: " + spec.skipNamespaces()
        + (spec.policies().isEmpty() ? "" : ", " + spec.policies().size() + " workload policies") + ")";
    return draft -> new ActionRecord(name(), StepOutcome.PENDING, what);
  }

  @Override
  public StepStart start(LongStepRun<DrainSpec> run) {
    StepPorts ports = run.ports();
    Optional<Refusal> full = ports.limits().drains().take(run.node(), "", run.now());
    if (full.isPresent()) {
      return new StepStart.Wait(full.get().reason(), "waiting for a drain slot: " + full.get().detail(), true);
    }
    return new StepStart.Go("drain started", Optional.of("drain started (" + run.spec().mode().code() + ", timeout "
        + Durations.format(run.spec().timeout()) + ")"));
  }

  @Override
  public void cancel(String node, StepPorts ports) {
    ports.limits().drains().release(node);
  }

  /** The pods the drain must see gone. */
  static boolean moves(PodInfo p, DrainSpec spec) {
    return moves(p, spec.skipNamespaces());
  }

  /** Whether a drain with the default skipped namespaces would move the pod: a workload, not the node's own. */
  public static boolean movesByDefault(PodInfo p) {
    return moves(p, DEFAULT_SKIP);
  }

  private static boolean moves(PodInfo p, Pattern skipNamespaces) {
    return !p.daemonSet() && !p.mirror() && !p.finished() && !skipNamespaces.matcher(p.namespace()).find();
  }

  /** A pod that leaves while evictions wait for their retry time ends the drain when it leaves. */
  @Override
  public boolean looksBeforeRetry() {
    return true;
  }

  @Override
  public StepResult look(LongStepRun<DrainSpec> run) throws ClusterException {
    DrainSpec spec = run.spec();
    List<PodInfo> left = new ArrayList<>();
    for (PodInfo p : run.ports().workloads().podsOn(run.node())) {
      if (moves(p, spec)) {
        left.add(p);
      }
    }
    if (left.isEmpty()) {
      return new StepResult.Succeeded("no pods left to move off " + run.node());
    }
    if (run.task().retryAt().filter(run.now()::isBefore).isPresent()) {
      // A look before the retry time (a pod of the node changed): nothing is evicted until then.
      return new StepResult.Running(run.episode().progress().note(), run.task().retryAt());
    }
    Instant deadline = run.task().started().plus(spec.timeout());
    if (!run.now().isBefore(deadline)) {
      if (spec.mode() != DrainMode.EVICT_THEN_DELETE) {
        return new StepResult.Failed(Reason.DRAIN_FAILED, "drain timed out after " + Durations.format(spec.timeout()) + " ("
            + spec.mode().code() + "): " + left.size() + " pods left: " + names(left));
      }
      for (PodInfo p : left) {
        if (!p.terminating()) {
          run.ports().workloads().delete(p, grace(p, spec));
          PodNotices.tell(run, p, "was deleted by a drain past its timeout", PodNotices.gpuOf(run));
        }
      }
      return new StepResult.Running("timeout reached: deleting the " + left.size() + " pods left (" + names(left) + ")",
          Optional.empty());
    }
    if (spec.mode() == DrainMode.WAIT) {
      return new StepResult.Running("waiting for " + left.size() + " pods to finish (" + names(left) + "); nothing evicted"
          + " (mode wait)", Optional.empty());
    }
    return evict(run, left, deadline);
  }

  private StepResult evict(LongStepRun<DrainSpec> run, List<PodInfo> left, Instant deadline) throws ClusterException {
    DrainSpec spec = run.spec();
    Instant now = run.now();
    Duration retryDelay = run.ports().retryDelay();
    long terminating = left.stream().filter(PodInfo::terminating).count();
    int evicted = 0;
    Set<String> blockers = new LinkedHashSet<>();
    Optional<Instant> retryAt = Optional.empty();
    String throttled = "";
    List<String> held = new ArrayList<>();
    for (PodInfo p : left) {
      if (p.terminating()) {
        continue;
      }
      Optional<String> waits = DrainPolicy.of(spec.policies(), p).flatMap(x -> x.holds(p, run.task().started(), now));
      if (waits.isPresent()) {
        held.add(waits.get());
        continue;
      }
      Eviction answer = run.ports().workloads().evict(p, grace(p, spec));
      if (answer instanceof Eviction.Granted) {
        PodNotices.tell(run, p, "was evicted by a drain", PodNotices.gpuOf(run));
      }
      if (answer instanceof Eviction.Granted || answer instanceof Eviction.Gone) {
        evicted++;
      } else if (answer instanceof Eviction.BudgetBlocked b) {
        String who = b.budget().orElse("of pod " + p.ref());
        if (blockers.add(who)) {
          run.warn().accept("DrainBlockedByPDB", "eviction of " + p.ref() + " blocked by PodDisruptionBudget " + who + ": " + b.message());
        }
        retryAt = earliest(retryAt, now.plus(b.retryAfter().orElse(retryDelay)));
      } else if (answer instanceof Eviction.Throttled t) {
        throttled = "; the API server is throttling evictions";
        retryAt = Optional.of(now.plus(t.retryAfter().orElse(retryDelay)));
      } else if (answer instanceof Eviction.SeveralBudgets several) {
        String text = "pod " + p.ref() + " matches more than one PodDisruptionBudget, which eviction does not support ("
            + several.message() + ")";
        if (spec.mode() == DrainMode.EVICT) {
          return new StepResult.Failed(Reason.DRAIN_FAILED, text + "; not retried: fix the budgets, then retry or release");
        }
        return new StepResult.Running(text + "; not retried: waiting for the timeout to delete it", Optional.of(deadline));
      } else if (answer instanceof Eviction.Refused r) {
        return new StepResult.Failed(Reason.DRAIN_FAILED, "eviction of " + p.ref() + " refused (HTTP " + r.code() + "): "
            + r.message());
      }
      if (!throttled.isEmpty()) {
        break;
      }
    }
    return new StepResult.Running(note(left.size(), evicted, terminating, blockers, held) + throttled, retryAt);
  }

  /** What a look that left pods says: how many, what it did, what waits and why. */
  private static String note(int left, int evicted, long terminating, Set<String> blockers, List<String> held) {
    StringBuilder note = new StringBuilder().append(left).append(" pods left to move");
    if (evicted > 0 || terminating > 0) {
      note.append(" (").append(evicted).append(" evicted now, ").append(terminating).append(" terminating)");
    }
    if (!blockers.isEmpty()) {
      note.append("; waiting on PDB ").append(String.join(", ", blockers));
    }
    if (!held.isEmpty()) {
      note.append("; held by a drain policy: ").append(String.join("; ", held));
    }
    return note.toString();
  }

  private static long grace(PodInfo p, DrainSpec spec) {
    long cap = spec.gracePeriod().toSeconds();
    return p.gracePeriodSeconds().map(own -> Math.min(own, cap)).orElse(cap);
  }

  private static Optional<Instant> earliest(Optional<Instant> a, Instant b) {
    return Optional.of(a.isPresent() && a.get().isBefore(b) ? a.get() : b);
  }

  private static String names(List<PodInfo> pods) {
    List<String> shown = pods.stream().limit(NAMES_SHOWN).map(PodInfo::ref).toList();
    return String.join(", ", shown) + (pods.size() > NAMES_SHOWN ? " and " + (pods.size() - NAMES_SHOWN) + " more" : "");
  }
}
