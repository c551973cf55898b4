package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.ActionKind;
import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.playbook.ActionSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A spec record added to the model has exactly one step kind, which decodes it, renders it and names it. */
class EveryActionKindTest {
  private static final List<Class<?>> SPECS = List.of(ActionSpec.class.getPermittedSubclasses());

  @Test
  void everySpecHasOneKindInTheRegistry() {
    assertThat(ActionRegistry.all().stream().<Class<?>>map(ActionKind::specType).toList())
        .containsExactlyInAnyOrderElementsOf(SPECS);
  }

  @Test
  void aKindsNameIsItsSpecRecordsNameWrittenOnce() {
    for (ActionKind<?> kind : ActionRegistry.all()) {
      assertThat(kind.specType().getSimpleName().toLowerCase()).isEqualTo(kind.name().replace("_", "") + "spec");
      assertThat(ActionRegistry.named(kind.name())).containsSame(kind);
    }
    assertThat(ActionSpec.kindOf(ActionSpec.DrainSpec.class)).isEqualTo("drain");
    assertThat(ActionSpec.kindOf(GpuResetSpec.class)).isEqualTo("gpu_reset");
  }

  /** A two-word kind, as the next step kinds will be. */
  private record GpuResetSpec() {}
}
