package io.gpuremediator.playbook;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class MatcherTest {
  private static final Map<String, String> LABELS =
      Map.of("alertname", "GpuXidHardwareError", "severity", "critical", "xid", "79");

  static Stream<Arguments> cases() {
    return Stream.of(
        Arguments.of("equal matches", "alertname=\"GpuXidHardwareError\"", true),
        Arguments.of("equal differs", "alertname=\"GpuXid\"", false),
        Arguments.of("bare value", "severity=critical", true),
        Arguments.of("not equal", "severity!=\"warning\"", true),
        Arguments.of("regex alternation", "severity=~\"critical|page\"", true),
        Arguments.of("regex is anchored at the start", "alertname=~\"XidHardwareError\"", false),
        Arguments.of("regex is anchored at the end", "alertname=~\"GpuXid\"", false),
        Arguments.of("regex is anchored around alternations", "severity=~\"crit|nothing\"", false),
        Arguments.of("negative regex", "xid!~\"13|31|43|45|68\"", true),
        Arguments.of("missing label equals empty", "gpu=\"\"", true),
        Arguments.of("missing label fails a non-empty regex", "gpu=~\".+\"", false),
        Arguments.of("spaces around the operator", "xid = \"79\"", true),
        Arguments.of("escaped quote in value", "alertname!=\"a\\\"b\"", true));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void matchesLikeAlertmanager(String name, String matcher, boolean expected) {
    assertThat(Matcher.parse(matcher).error()).isNull();
    assertThat(Matcher.parse(matcher).value().matches(LABELS)).isEqualTo(expected);
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("no operator", "alertname", "matcher \"alertname\" has no operator (=, !=, =~, !~)"),
        Arguments.of("bad regex", "alertname=~\"Gpu(Xid\"", "matcher \"alertname=~\"Gpu(Xid\"\": invalid regex: Unclosed group"),
        Arguments.of("no label", "=\"x\"", "matcher \"=\"x\"\" does not start with a label name"),
        Arguments.of("unterminated quote", "a=\"x", "matcher \"a=\"x\": unterminated quoted value"),
        Arguments.of("text after quote", "a=\"x\"y", "matcher \"a=\"x\"y\": text after the closing quote"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void rejectsInvalidMatcherWithExactMessage(String name, String matcher, String message) {
    assertThat(Matcher.parse(matcher).error()).isEqualTo(message);
  }

  @Test
  void printsInAlertmanagerSyntax() {
    assertThat(Matcher.parse("severity =~ critical").value()).hasToString("severity=~\"critical\"");
  }
}
