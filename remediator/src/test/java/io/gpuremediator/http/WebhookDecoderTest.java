package io.gpuremediator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.gpuremediator.alert.AlertStatus;
import io.gpuremediator.alert.WebhookMessage;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class WebhookDecoderTest {
  private final WebhookDecoder decoder = new WebhookDecoder();

  static String alert(String body) {
    return "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":[" + body + "]}";
  }

  static final String GOOD_ALERT = "{\"status\":\"firing\",\"labels\":{\"alertname\":\"GpuXidHardwareError\",\"node\":\"n1\"},"
      + "\"annotations\":{\"summary\":\"s\"},\"startsAt\":\"2026-11-22T10:00:00.123+01:00\","
      + "\"endsAt\":\"0001-01-01T00:00:00Z\",\"generatorURL\":\"http://p/graph\",\"fingerprint\":\"51bd24cd1a4314bf\"}";

  private WebhookMessage decode(String json) throws WebhookFormatException {
    return decoder.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void decodesAnAlertmanagerMessageAndToleratesUnknownFields() throws Exception {
    String json = "{\"receiver\":\"remediator\",\"status\":\"firing\",\"alerts\":[" + GOOD_ALERT + "],"
        + "\"groupLabels\":{\"alertname\":\"GpuXidHardwareError\"},\"commonLabels\":{},\"commonAnnotations\":{},"
        + "\"externalURL\":\"http://am\",\"version\":\"4\",\"groupKey\":\"{}:{}\",\"truncatedAlerts\":0,"
        + "\"notification_reason\":\"new\",\"routeLabels\":{\"x\":[1,{\"y\":2}]}}";
    WebhookMessage m = decode(json);
    assertThat(m.status()).isEqualTo(AlertStatus.FIRING);
    assertThat(m.alerts()).singleElement().satisfies(a -> {
      assertThat(a.alertname()).isEqualTo("GpuXidHardwareError");
      assertThat(a.startsAt()).isEqualTo(Instant.parse("2026-11-22T09:00:00.123Z"));
      assertThat(a.endsAt()).isEmpty();
      assertThat(a.fingerprint()).isEqualTo("51bd24cd1a4314bf");
    });
  }

  @Test
  void eachAlertKeepsItsOwnStatus() throws Exception {
    WebhookMessage m = decode(alert(GOOD_ALERT + "," + GOOD_ALERT.replace("\"status\":\"firing\"", "\"status\":\"resolved\"")));
    assertThat(m.alerts()).extracting(a -> a.status()).containsExactly(AlertStatus.FIRING, AlertStatus.RESOLVED);
  }

  /**
   * Alertmanager 0.28+ and Prometheus 3 accept any UTF-8 label name. The envelope is a real Alertmanager body and the
   * label sets are real ones (tests/real/alertmanager/, sources in tests/real/SOURCES.md): Grafana's {@code foo🙂}, and
   * OpenTelemetry's dotted names as Alertmanager 0.31 delivers them, here also as external labels of a shared Alertmanager.
   */
  @Test
  void acceptsEveryLabelNameAlertmanagerAcceptsInARealBody() throws Exception {
    Path real = Path.of("../tests/real/alertmanager");
    ObjectMapper json = new ObjectMapper();
    ObjectNode body =
        (ObjectNode) json.readTree(real.resolve("0.2x-resolved-body.json").toFile());
    ObjectNode grafana =
        (ObjectNode) json.readTree(real.resolve("utf8-labels-grafana-webhook.json").toFile());
    ObjectNode alert = (ObjectNode) body.path("alerts").get(0);
    alert.set("labels", grafana);
    String otel = Files.readString(real.resolve("utf8-otel-labels-am-0.31.txt")).strip();
    ObjectNode dotted = json.createObjectNode();
    Matcher m = Pattern.compile("([^{}=, ]+)=\"([^\"]*)\"").matcher(otel);
    while (m.find()) {
      dotted.put(m.group(1), m.group(2));
    }
    dotted.put("node", "gpu-node-1");
    dotted.put("k8s.cluster.name", "prod-a");
    ObjectNode second = alert.deepCopy();
    second.set("labels", dotted);
    body.withArray("alerts").add(second);

    WebhookMessage m2 = decoder.decode(json.writeValueAsBytes(body));
    assertThat(m2.alerts()).hasSize(2);
    assertThat(m2.alerts().get(0).labels()).containsEntry("foo🙂", "bar").containsEntry("bar", "baz🙂");
    assertThat(m2.alerts().get(1).labels()).containsEntry("host.name", "server-01").containsEntry("service.namespace", "myapp")
        .containsEntry("k8s.cluster.name", "prod-a");
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("not an object", "[]", "body: must be a JSON object"),
        Arguments.of("malformed", "{\"version\":", "body: malformed JSON at line 1, column 12"),
        Arguments.of("trailing garbage", alert(GOOD_ALERT) + "x", "body: malformed JSON at line 1, column " + (alert(GOOD_ALERT).length() + 1)),
        Arguments.of("no version", "{\"status\":\"firing\",\"alerts\":[]}", "version: required"),
        Arguments.of("wrong version", "{\"version\":\"3\",\"status\":\"firing\",\"alerts\":[]}", "version: \"3\" is not supported (only \"4\")"),
        Arguments.of("no alerts", "{\"version\":\"4\",\"status\":\"firing\"}", "alerts: required"),
        Arguments.of("alerts not an array", "{\"version\":\"4\",\"status\":\"firing\",\"alerts\":{}}", "alerts: must be an array"),
        Arguments.of("bad status", alert(GOOD_ALERT.replace("\"status\":\"firing\"", "\"status\":\"burning\"")),
            "alerts[0].status: \"burning\" is not firing or resolved"),
        Arguments.of("bad time", alert(GOOD_ALERT.replace("2026-11-22T10:00:00.123+01:00", "yesterday")),
            "alerts[0].startsAt: \"yesterday\" is not an RFC 3339 time"),
        Arguments.of("label not a string", alert(GOOD_ALERT.replace("\"node\":\"n1\"", "\"node\":7")),
            "alerts[0].labels.node: must be a string"),
        Arguments.of("no alertname", alert(GOOD_ALERT.replace("\"alertname\":\"GpuXidHardwareError\",", "")),
            "alerts[0].labels.alertname: required"),
        Arguments.of("no fingerprint", alert(GOOD_ALERT.replace(",\"fingerprint\":\"51bd24cd1a4314bf\"", "")),
            "alerts[0].fingerprint: required"),
        Arguments.of("fingerprint not hex", alert(GOOD_ALERT.replace("51bd24cd1a4314bf", "../x")),
            "alerts[0].fingerprint: \"../x\" is not a hex fingerprint"),
        Arguments.of("empty label name", alert(GOOD_ALERT.replace("\"node\":\"n1\"", "\"\":\"n1\"")),
            "alerts[0].labels: \"\" is not a label name"),
        Arguments.of("label name not UTF-8", alert(GOOD_ALERT.replace("\"node\":\"n1\"", "\"\\ud800\":\"n1\"")),
            "body: malformed JSON at line 1, column 114"),
        Arguments.of("duplicate label", alert(GOOD_ALERT.replace("\"node\":\"n1\"", "\"node\":\"n1\",\"node\":\"n2\"")),
            "alerts[0].labels: \"node\" appears twice"),
        Arguments.of("duplicate known field", alert(GOOD_ALERT.replace("\"status\":\"firing\",", "\"status\":\"firing\",\"status\":\"resolved\",")),
            "alerts[0].status: appears twice"),
        Arguments.of("impossible date", alert(GOOD_ALERT.replace("2026-11-22T10:00:00.123+01:00", "2026-02-30T10:00:00Z")),
            "alerts[0].startsAt: \"2026-02-30T10:00:00Z\" is not an RFC 3339 time"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void rejectsWithAMessageNamingTheField(String name, String json, String message) {
    assertThatThrownBy(() -> decode(json)).isInstanceOf(WebhookFormatException.class).hasMessage(message);
  }

  @Test
  void refusesDeepNestingWithoutRecursing() {
    int depth = 100_000;
    String json = "{\"version\":\"4\",\"x\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
    assertThatThrownBy(() -> decode(json)).hasMessage("body: JSON nested deeper than 16 levels");
  }

  @Test
  void refusesDeepNestingInsideKnownFields() {
    String json = alert(GOOD_ALERT.replace("\"annotations\":{\"summary\":\"s\"}",
        "\"annotations\":{\"a\":" + "{\"b\":".repeat(50_000) + "1" + "}".repeat(50_000) + "}"));
    assertThatThrownBy(() -> decode(json)).isInstanceOf(WebhookFormatException.class);
  }
}
