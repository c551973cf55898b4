package io.gpuremediator.action;

import io.gpuremediator.node.FieldRule;
import io.gpuremediator.playbook.Template;
import io.gpuremediator.playbook.TemplateContext;
import java.util.Optional;

/** Rendering helpers shared by the action kinds. */
final class Params {
  private Params() {}

  /** Renders a template and checks the result against its field's rule. */
  static String render(Template template, TemplateContext ctx, FieldRule rule, String what) throws RenderException {
    String value = template.render(ctx);
    Optional<String> invalid = rule.check(value);
    if (invalid.isPresent()) {
      throw new RenderException(what + " rendered from \"" + template.source() + "\": " + invalid.get());
    }
    return value;
  }

  /** Renders free text, cutting it to the field's limit rather than refusing the action for a long summary. */
  static String renderMessage(Template template, TemplateContext ctx) {
    String value = template.render(ctx);
    int max = FieldRule.MESSAGE.maxLength();
    return value.length() <= max ? value : value.substring(0, max - 3) + "...";
  }
}
