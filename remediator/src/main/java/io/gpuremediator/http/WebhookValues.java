package io.gpuremediator.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import io.gpuremediator.alert.AlertStatus;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The values of a webhook body as {@link WebhookDecoder} reads them, each checked strictly with its path in the error:
 * strings, counts, statuses, RFC 3339 times, objects of strings, fingerprints; and the form a value takes when an error
 * echoes it.
 */
final class WebhookValues {
  private WebhookValues() {}

  static void require(Object value, String path) throws WebhookFormatException {
    if (value == null) {
      throw new WebhookFormatException(path + ": required");
    }
  }

  static String string(JsonParser p, String path) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw new WebhookFormatException(path + ": must be a string");
    }
    return p.getText();
  }

  static String optionalString(JsonParser p, String path) throws IOException, WebhookFormatException {
    return p.currentToken() == JsonToken.VALUE_NULL ? "" : string(p, path);
  }

  static int count(JsonParser p, String path) throws IOException, WebhookFormatException {
    if (p.currentToken() != JsonToken.VALUE_NUMBER_INT || p.getLongValue() < 0 || p.getLongValue() > Integer.MAX_VALUE) {
      throw new WebhookFormatException(path + ": must be a non-negative integer");
    }
    return p.getIntValue();
  }

  static AlertStatus status(JsonParser p, String path) throws IOException, WebhookFormatException {
    String s = string(p, path);
    return AlertStatus.fromCode(s).orElseThrow(() ->
        new WebhookFormatException(path + ": \"" + printable(s) + "\" is not firing or resolved"));
  }

  /** A timestamp; the alerts of one webhook mostly share their times, so each distinct text is parsed once. */
  static Instant time(JsonParser p, String path, Map<String, Instant> times) throws IOException, WebhookFormatException {
    String s = string(p, path);
    Instant known = times.get(s);
    if (known != null) {
      return known;
    }
    Instant parsed = Rfc3339.parse(s).orElseThrow(() ->
        new WebhookFormatException(path + ": \"" + printable(s) + "\" is not an RFC 3339 time"));
    if (times.size() < 64) {
      times.put(s, parsed);
    }
    return parsed;
  }

  /**
   * An object of strings, built straight into an immutable map (the Alert keeps it without copying);
   * a key given twice is refused.
   */
  @SuppressWarnings("unchecked")
  static Map<String, String> stringMap(JsonParser p, String path, boolean labelNames)
      throws IOException, WebhookFormatException {
    if (p.currentToken() == JsonToken.VALUE_NULL && !labelNames) {
      return Map.of();
    }
    if (p.currentToken() != JsonToken.START_OBJECT) {
      throw new WebhookFormatException(path + ": must be an object of strings");
    }
    List<Map.Entry<String, String>> entries = new ArrayList<>(16);
    while (p.nextToken() == JsonToken.FIELD_NAME) {
      String key = p.currentName();
      p.nextToken();
      if (labelNames && !isLabelName(key)) {
        throw new WebhookFormatException(path + ": \"" + printable(key) + "\" is not a label name");
      }
      if (p.currentToken() != JsonToken.VALUE_STRING) {
        throw new WebhookFormatException(path + "." + key + ": must be a string");
      }
      entries.add(Map.entry(key, p.getText()));
    }
    try {
      return Map.ofEntries(entries.toArray(new Map.Entry[0]));
    } catch (IllegalArgumentException duplicate) {
      Set<String> seen = new HashSet<>();
      String twice = entries.stream().map(Map.Entry::getKey).filter(k -> !seen.add(k)).findFirst().orElse("");
      throw new WebhookFormatException(path + ": \"" + printable(twice) + "\" appears twice");
    }
  }

  /**
   * Whether the text is a label name Alertmanager accepts: since Prometheus 3 and Alertmanager 0.28 any non-empty
   * UTF-8 text ({@code host.name}, {@code k8s.cluster.name}, {@code foo🙂}), not only {@code [a-zA-Z_][a-zA-Z0-9_]*}.
   * Alertmanager never retries a 4xx, so refusing a name it accepted would stop every remediation in the body. Text
   * that is not UTF-8 never gets here: the JSON parser refuses it. What a label renders into a Kubernetes field is
   * validated there, whatever its name.
   */
  static boolean isLabelName(String s) {
    return !s.isEmpty();
  }

  static boolean isFingerprint(String s) {
    if (s.isEmpty() || s.length() > 64) {
      return false;
    }
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
        return false;
      }
    }
    return true;
  }

  /** The value as it may be echoed in an error: control characters escaped, long values cut. */
  static String printable(String value) {
    String cut = value.length() > 64 ? value.substring(0, 64) + "..." : value;
    StringBuilder b = new StringBuilder();
    cut.codePoints().forEach(c -> {
      if (c < 0x20 || c == 0x7f || c == '"' || c == '\\') {
        b.append(String.format("\\u%04x", c));
      } else {
        b.appendCodePoint(c);
      }
    });
    return b.toString();
  }
}
