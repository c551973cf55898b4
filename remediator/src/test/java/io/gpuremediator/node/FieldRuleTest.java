package io.gpuremediator.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class FieldRuleTest {
  @Test
  void labelValueRulesFollowTheApiServer() {
    assertThat(FieldRule.LABEL_VALUE.accepts("")).isTrue();
    assertThat(FieldRule.LABEL_VALUE.accepts("xid-79")).isTrue();
    assertThat(FieldRule.LABEL_VALUE.accepts("xid-")).isFalse();
    assertThat(FieldRule.LABEL_VALUE.accepts("a".repeat(63))).isTrue();
    assertThat(FieldRule.LABEL_VALUE.accepts("a".repeat(64))).isFalse();
    assertThat(FieldRule.LABEL_VALUE.accepts("$(reboot)")).isFalse();
  }

  @Test
  void reasonMustBeCamelCase() {
    assertThat(FieldRule.REASON.accepts("GpuXid")).isTrue();
    assertThat(FieldRule.REASON.accepts("gpu xid")).isFalse();
    assertThat(FieldRule.REASON.accepts("9Lives")).isFalse();
  }

  @Test
  void explainsWhyAndEscapesControlCharacters() {
    assertThat(FieldRule.DNS_SUBDOMAIN.check("a\nb")).contains(
        "\"a\\u000ab\" is not a lowercase RFC 1123 subdomain (a-z, 0-9, '-', '.')");
  }

  @Test
  void qualifiedNamesAcceptOurPrefix() {
    assertThat(FieldRule.QUALIFIED_NAME.accepts("gpu-remediator.io/unhealthy")).isTrue();
    assertThat(FieldRule.QUALIFIED_NAME.accepts("Gpu-Remediator.io/unhealthy")).isFalse();
  }

  @Test
  void handWrittenChecksAgreeWithTheDefiningRegexes() {
    Random random = new Random(42);
    String alphabet = "aZ09-_.,:/ \u043e";
    for (int i = 0; i < 200_000; i++) {
      StringBuilder b = new StringBuilder();
      int length = random.nextInt(8);
      for (int k = 0; k < length; k++) {
        b.append(alphabet.charAt(random.nextInt(alphabet.length())));
      }
      String v = b.toString();
      for (FieldRule rule : new FieldRule[] {FieldRule.DNS_SUBDOMAIN, FieldRule.LABEL_VALUE, FieldRule.REASON}) {
        assertThat(rule.accepts(v)).as("%s on \"%s\"", rule, v).isEqualTo(rule.matchesDefinition(v));
      }
    }
  }
}
