package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import io.gpuremediator.action.ActionKind;
import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.playbook.ActionSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every spec record of the code has exactly one step kind in the registry, which decodes it, renders it and names it. */
class EveryActionKindTest {
  @Test
  void everySpecRecordHasOneKindInTheRegistry() {
    List<String> specs = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
        .importPackages("io.gpuremediator").stream().filter(c -> c.isAssignableTo(ActionSpec.class) && !c.isInterface())
        .map(JavaClass::getName).toList();
    assertThat(ActionRegistry.all().stream().map(k -> k.specType().getName()).toList())
        .doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(specs);
  }

  @Test
  void aKindsNameIsItsSpecRecordsNameWrittenOnce() {
    for (ActionKind<?> kind : ActionRegistry.all()) {
      assertThat(kind.specType().getSimpleName().toLowerCase()).isEqualTo(kind.name().replace("_", "") + "spec");
      assertThat(ActionRegistry.named(kind.name())).containsSame(kind);
      assertThat(kind.specType().getEnclosingClass()).as("a spec record lives with its kind").isEqualTo(kind.getClass());
    }
    assertThat(ActionSpec.kindOf(GpuResetSpec.class)).isEqualTo("gpu_reset");
  }

  /** A two-word kind, as the next step kinds will be. */
  private record GpuResetSpec() {}
}
