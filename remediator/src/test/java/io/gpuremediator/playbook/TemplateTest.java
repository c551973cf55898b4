package io.gpuremediator.playbook;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class TemplateTest {
  private static final TemplateContext CTX = new TemplateContext(Map.of("xid", "79", "gpu", "3"),
      Map.of("summary", "GPU fell off the bus"), "gpu-node-1", "GpuXidHardwareError", "a1b2");

  @Test
  void rendersEveryVariableKind() {
    Template t = Template.parse("{{ alertname }}/{{node}}/{{ labels.xid }}/{{ annotations.summary }}/{{ fingerprint }}").value();
    assertThat(t.render(CTX)).isEqualTo("GpuXidHardwareError/gpu-node-1/79/GPU fell off the bus/a1b2");
  }

  @Test
  void rendersMissingLabelAsEmpty() {
    assertThat(Template.parse("xid-{{ labels.nope }}").value().render(CTX)).isEqualTo("xid-");
  }

  @Test
  void literalIsConstant() {
    assertThat(Template.parse("plain").value().isConstant()).isTrue();
    assertThat(Template.parse("a{{ node }}").value().isConstant()).isFalse();
  }

  @Test
  void rejectsUnknownVariable() {
    assertThat(Template.parse("{{ labels }}").error()).isEqualTo(
        "unknown template variable \"labels\" (known: labels.NAME, annotations.NAME, node, alertname, fingerprint)");
  }

  @Test
  void rejectsUnclosedPlaceholder() {
    assertThat(Template.parse("x {{ node").error()).isEqualTo("template \"x {{ node\" has an unclosed {{");
  }

  @Test
  void doesNotEvaluateRenderedValuesAgain() {
    TemplateContext sneaky = new TemplateContext(Map.of("xid", "{{ node }}"), Map.of(), "n", "a", "f");
    assertThat(Template.parse("{{ labels.xid }}").value().render(sneaky)).isEqualTo("{{ node }}");
  }
}
