package io.gpuremediator.playbook;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Pattern;
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
        Arguments.of("no label", "=\"x\"", "matcher \"=\"x\"\" does not start with a label name (quote any other name:"
            + " \"k8s.cluster.name\"=\"prod-a\")"),
        Arguments.of("a dotted name unquoted", "k8s.cluster.name=\"x\"", "matcher \"k8s.cluster.name=\"x\"\" does not start with a"
            + " label name (quote any other name: \"k8s.cluster.name\"=\"prod-a\")"),
        Arguments.of("an empty quoted name", "\"\"=\"x\"", "matcher \"\"\"=\"x\"\" has an empty label name"),
        Arguments.of("a quote closed in the wrong place", "\"host.name=\"x", "matcher \"\"host.name=\"x\" has no operator (=, !=, =~, !~)"),
        Arguments.of("an unterminated quoted name", "\"host.name", "matcher \"\"host.name\": unterminated quoted label name"),
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
    assertThat(Matcher.parse("\"k8s.cluster.name\" = prod-a").value()).hasToString("\"k8s.cluster.name\"=\"prod-a\"");
    assertThat(Matcher.parse("\"severity\"=critical").value()).hasToString("severity=\"critical\"");
  }

  /** Label names as Alertmanager 0.31 writes them in UTF-8 mode (tests/real/alertmanager), matched in their quoted form. */
  @Test
  void quotedLabelNamesMatchTheDottedNamesOfARealAlert() throws Exception {
    String otel = Files.readString(Path.of("../tests/real/alertmanager/utf8-otel-labels-am-0.31.txt")).strip();
    Map<String, String> labels = new HashMap<>();
    Pattern.compile("([^{}=, ]+)=\"([^\"]*)\"").matcher(otel).results().forEach(r -> labels.put(r.group(1), r.group(2)));
    assertThat(labels).containsEntry("host.name", "server-01");
    assertThat(Matcher.parse("\"host.name\"=\"server-01\"").value().matches(labels)).isTrue();
    assertThat(Matcher.parse("\"service.name\"=~\"rails|web\"").value().matches(labels)).isTrue();
    assertThat(Matcher.parse("\"service.namespace\"!=\"myapp\"").value().matches(labels)).isFalse();
    assertThat(Matcher.parse("\"k8s.cluster.name\"=\"prod-a\"").value().matches(labels)).isFalse();
    assertThat(Matcher.parse("\"alertname\"=\"MyAlert\"").value().matches(labels)).isTrue();
  }
}
