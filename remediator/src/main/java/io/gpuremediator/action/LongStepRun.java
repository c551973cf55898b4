package io.gpuremediator.action;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress.Task;
import java.time.Instant;
import java.util.function.BiConsumer;

/**
 * One start of, or look at, a long step.
 *
 * @param task the task under way (at a start: the one about to be recorded)
 * @param warn records a warning Event on the node (its reason, its message) once per distinct message
 * @param <S> the spec record of its kind
 */
public record LongStepRun<S extends ActionSpec>(String node, Episode episode, Playbook playbook, S spec, Task task,
    Instant now, StepPorts ports, BiConsumer<String, String> warn) {}
