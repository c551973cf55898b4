package io.gpuremediator.episode;
import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.action.LongStep;
import io.gpuremediator.action.LongStepRun;
import io.gpuremediator.action.StepPorts;
import io.gpuremediator.action.StepResult;
import io.gpuremediator.action.StepStages;
import io.gpuremediator.action.StepStart;
import io.gpuremediator.decision.Reason;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import io.gpuremediator.state.Progress.Task;
import io.gpuremediator.state.Stage;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * One long step of an episode: asked to start (it goes, waits, or can never start as things are), then looked at until
 * it passes or fails; a failure escalates to its {@code on_fail} playbook or stops in its failed stage. What a step
 * does is its kind's ({@link LongStep}), reached through the registry; every move goes through {@link EpisodeMoves}.
 */
final class LongSteps {
  private final Cluster cluster;
  private final EpisodeMoves moves;
  private final StepPorts ports;
  private final GoneNodes gone;

  LongSteps(Cluster cluster, EpisodeMoves moves, StepPorts ports, GoneNodes gone) {
    this.cluster = cluster;
    this.moves = moves;
    this.ports = ports;
    this.gone = gone;
  }

  /** Asks the long step at the cursor to start: it goes, waits, or can never start as things are. */
  Episode start(String node, Episode e, Playbook pb, ActionSpec spec, PlaybookSet set, Instant now) throws ClusterException {
    LongStep<ActionSpec> kind = ActionRegistry.longStep(spec).orElseThrow();
    Optional<StepStages> stages = Optional.of(kind.stages());
    Progress p = e.progress();
    Task task = new Task(spec.kind(), p.next(), now, 1, "", Optional.empty());
    StepStart start = kind.start(run(node, e, pb, spec, task, now));
    if (start instanceof StepStart.Failed f) {
      return fail(node, e, spec, kind, task, new StepResult.Failed(f.reason(), f.why()), set, now);
    }
    if (start instanceof StepStart.Impossible i) {
      moves.needsHuman(node, e, i.reason(), i.why());
      return null;
    }
    if (start instanceof StepStart.Wait w) {
      moves.decisions().noticeOnce(node, e, w.reason(), w.note());
      if (p.note().equals(w.note())) {
        return null;
      }
      Progress waiting = (w.backToQuarantined() ? p.inStage(Stage.QUARANTINED, now) : p).noted(w.note());
      return moves.quietly(node, e, Transition.WAITING, e.with(waiting), stages).orElse(null);
    }
    StepStart.Go go = (StepStart.Go) start;
    go.notices().forEach(n -> moves.decisions().announceOnce(node, e, n.reason(), n.detail()));
    Episode next = e.with(p.inStage(kind.stages().running(), now).running(task).noted(go.note()));
    Optional<Episode> written = go.decided().isPresent()
        ? moves.move(node, e, Transition.STEP_STARTED, next, stages, kind.stages().started(), go.decided().get())
        : moves.quietly(node, e, Transition.STEP_STARTED, next, stages);
    if (written.isEmpty()) {
      kind.cancel(node, ports);
    }
    return written.orElse(null);
  }

  /** One look at the long step under way; {@code ours}: the episode is our write's answer of this advance, no read needed. */
  Episode look(String node, Episode e, Playbook playbook, List<ActionSpec> list, Task task, PlaybookSet set,
      Instant now, boolean ours) throws ClusterException {
    // A reloaded playbook may have another step there now, or none: the task's step is then no longer there to run.
    Optional<ActionSpec> spec = task.step() < list.size() ? Optional.of(list.get(task.step())) : Optional.empty();
    Optional<LongStep<ActionSpec>> kind = spec.filter(s -> s.kind().equals(task.kind())).flatMap(ActionRegistry::longStep);
    boolean early = task.retryAt().isPresent() && now.isBefore(task.retryAt().get());
    if (early && kind.map(k -> !k.looksBeforeRetry()).orElse(true)) {
      return null;
    }
    if (!ours && !moves.writer().stillCurrent(node, e)) {
      return null; // another instance, the webhook or a human moved the episode since the cache showed it
    }
    if (kind.isEmpty()) {
      moves.needsHuman(node, e, Reason.PLAYBOOK_MISSING, "step " + (task.step() + 1) + " of " + playbook.name() + " is no"
          + " longer the " + task.kind() + " step under way (the playbook changed); a human retries or releases");
      return null;
    }
    if (kind.get().whenNodeGone() != LongStep.WhenNodeGone.NOTHING && !task.handle().isEmpty()) {
      gone.track(node, e, cluster.ledgerOf(node), kind.get().whenNodeGone());
    }
    StepResult result = kind.get().look(run(node, e, playbook, spec.get(), task, now));
    return settle(node, e, spec.get(), kind.get(), task, result, set, now);
  }

  /** Records what a look found: still running, started outside, passed, or failed (or escalated). */
  private Episode settle(String node, Episode e, ActionSpec spec, LongStep<ActionSpec> kind, Task task, StepResult result,
      PlaybookSet set, Instant now) throws ClusterException {
    Progress p = e.progress();
    Optional<StepStages> stages = Optional.of(kind.stages());
    if (result instanceof StepResult.Running r) {
      Task next = r.retryAt().map(task::retryAt).orElse(new Task(task.kind(), task.step(), task.started(), task.attempt(),
          task.handle(), Optional.empty()));
      if (!next.equals(task) || !p.note().equals(r.note())) {
        moves.quietly(node, e, Transition.STEP_RUNNING, e.with(p.running(next).noted(r.note())), stages);
      }
      return null;
    }
    if (result instanceof StepResult.Recorded r) {
      Task next = new Task(task.kind(), task.step(), task.started(), task.attempt(), r.handle(), r.retryAt());
      Optional<Episode> written = moves.quietly(node, e, Transition.STEP_RUNNING, e.with(p.running(next).noted(r.note())),
          stages);
      return r.retryAt().isPresent() ? null : written.orElse(null);
    }
    if (result instanceof StepResult.Intent i) {
      return send(node, e, spec, kind, task, i, set, now);
    }
    if (result instanceof StepResult.Started s) {
      Episode next = e.with(p.running(task.withHandle(s.handle())).noted(s.note()));
      Optional<Episode> written = moves.move(node, e, Transition.STEP_RUNNING, next, stages, kind.stages().started(),
          s.detail());
      if (written.isPresent() && kind.whenNodeGone() != LongStep.WhenNodeGone.NOTHING) {
        gone.track(node, written.get(), cluster.ledgerOf(node), kind.whenNodeGone());
      }
      return written.orElse(null);
    }
    if (result instanceof StepResult.Succeeded s) {
      double took = Duration.between(task.started(), now).toMillis() / 1000.0;
      moves.decisions().listener().stepFinished(task.kind(), "succeeded", took);
      if (kind.stages().running() == Stage.REPAIRING) {
        moves.decisions().listener().repaired(e.playbook(), task.kind(), took);
      }
      Stage stage = kind.stages().passed().orElse(p.stage());
      Episode kept = s.kept().applyTo(e, Episode.stepKey(e.playbook(), p.releasing(), task.step()));
      Episode next = kept.with(p.at(task.step() + 1).inStage(stage, now).noted(s.note()));
      Optional<Episode> written = moves.move(node, e, Transition.STEP_PASSED, next, stages, kind.stages().passedReason(),
          s.note());
      written.ifPresent(w -> kind.cancel(node, ports));
      return written.orElse(null);
    }
    return fail(node, e, spec, kind, task, (StepResult.Failed) result, set, now);
  }

  /** Records the intent, then asks outside once and settles its answer. */
  private Episode send(String node, Episode e, ActionSpec spec, LongStep<ActionSpec> kind, Task task, StepResult.Intent i,
      PlaybookSet set, Instant now) throws ClusterException {
    Task next = task.withHandle(i.handle());
    Optional<Episode> written = moves.quietly(node, e, Transition.STEP_RUNNING, e.with(e.progress().running(next)
        .noted(i.note())), Optional.of(kind.stages()));
    if (written.isEmpty()) {
      return null; // not recorded: nothing is asked
    }
    Playbook playbook = set.named(written.get().playbook()).orElseThrow();
    StepResult sent = kind.send(run(node, written.get(), playbook, spec, next, now));
    if (sent instanceof StepResult.Intent) {
      throw new IllegalStateException("step kind " + task.kind() + " answered an intent with another");
    }
    return settle(node, written.get(), spec, kind, next, sent, set, now);
  }

  /** A failed step escalates to its on_fail playbook when there is one, else stops in its failed stage. */
  private Episode fail(String node, Episode e, ActionSpec spec, LongStep<ActionSpec> kind, Task task, StepResult.Failed f,
      PlaybookSet set, Instant now) throws ClusterException {
    moves.decisions().listener().stepFinished(task.kind(), "failed", Duration.between(task.started(), now).toMillis() / 1000.0);
    gone.forget(node);
    Optional<String> to = f.escalateTo().or(spec::escalatesTo).filter(name -> set.named(name).isPresent());
    if (to.isPresent()) {
      Progress escalated = Progress.startingIn(Stage.ESCALATED, now, 0, f.note());
      return moves.escalate(node, e, e.escalatedTo(to.get(), escalated), to.get(), kind.escalationReason().orElse(null),
          f.reason(), f.note(), kind.stages().failed()).orElse(null);
    }
    // The failed task stays in the ledger (a failed stage is never looked at): a retry numbers its attempt from it.
    Episode next = e.with(e.progress().inStage(kind.stages().failed(), now).noted(f.note()));
    if (moves.move(node, e, Transition.STEP_FAILED, next, Optional.of(kind.stages()), f.reason(), f.note()).isPresent()) {
      kind.cancel(node, ports);
    }
    return null;
  }

  private LongStepRun<ActionSpec> run(String node, Episode e, Playbook playbook, ActionSpec spec, Task task, Instant now) {
    return new LongStepRun<>(node, e, playbook, spec, task, now, ports,
        (reason, message) -> moves.decisions().warnOnce(node, e, reason, message));
  }
}
