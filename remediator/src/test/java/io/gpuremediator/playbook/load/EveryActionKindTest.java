package io.gpuremediator.playbook.load;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuremediator.action.ActionRegistry;
import io.gpuremediator.playbook.ActionSpec;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A spec record added to the model is both decodable from YAML and applicable to a node, or the build fails. */
class EveryActionKindTest {
  private static final List<Class<?>> SPECS = List.of(ActionSpec.class.getPermittedSubclasses());

  @Test
  void everySpecHasADecoder() {
    assertThat(ActionDecoders.all().stream().<Class<?>>map(ActionDecoders.Decoder::specType).toList())
        .containsExactlyInAnyOrderElementsOf(SPECS);
  }

  @Test
  void everySpecHasAnActionKind() {
    assertThat(ActionRegistry.specTypes()).containsExactlyInAnyOrderElementsOf(SPECS);
  }

  @Test
  void decodedNamesAreTheSpecsKinds() {
    for (ActionDecoders.Decoder d : ActionDecoders.all()) {
      assertThat(d.specType().getSimpleName().toLowerCase()).isEqualTo(d.name() + "spec");
    }
  }
}
